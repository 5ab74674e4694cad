export function WorkflowStatusBadges({
  currentVersion,
  hasDraftChanges,
  isEnabled,
}: {
  currentVersion: string | null;
  hasDraftChanges: boolean;
  isEnabled: boolean;
}) {
  return (
    <span className="row" style={{ gap: 4 }}>
      {currentVersion ? (
        <span className="badge badge-ok">v{currentVersion}</span>
      ) : (
        <span className="badge">draft only</span>
      )}
      {currentVersion && hasDraftChanges ? (
        <span className="badge badge-warn">unpublished changes</span>
      ) : null}
      {!isEnabled ? <span className="badge badge-danger">disabled</span> : null}
    </span>
  );
}
