import { issuesOf, mapIssues } from "@/components/forms/issues";

/** A failed save's issues: the first message per field, plus those no field shows. */
export function saveIssues(error: unknown) {
  return error ? mapIssues(issuesOf(error)) : { byField: {}, unplaced: [] };
}

/**
 * Under an alerts form: the issues no field shows, or the save's own message when it failed
 * without field issues. Nothing otherwise.
 */
export function SaveIssues({ error }: { error: { message: string } | null }) {
  const { byField, unplaced } = saveIssues(error);
  if (unplaced.length)
    return (
      <div className="form-error" role="alert">
        {unplaced.map((u) => u.message).join(" ")}
      </div>
    );
  if (error && !Object.keys(byField).length)
    return (
      <div className="form-error" role="alert">
        {error.message}
      </div>
    );
  return null;
}
