import { proposalStatusLabel, type ProposalStatus } from "@/lib/workflow/status";
import { riskTone, statusTone } from "./proposal-format";

export function ProposalStatusBadge({ status }: { status: ProposalStatus }) {
  return (
    <span className={statusTone(status)} data-status={status}>
      {proposalStatusLabel(status)}
    </span>
  );
}

export function RiskBadge({ risk }: { risk: string }) {
  return (
    <span className={riskTone(risk)} data-risk={risk}>
      {risk} risk
    </span>
  );
}
