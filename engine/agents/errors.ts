/**
 * Why an agent action was refused, by what the caller can do about it; the HTTP layer maps
 * each kind to its status (DESIGN.md §7).
 */
export type AgentErrorKind =
  /** Malformed input the launcher would reject (400). */
  | "invalid"
  /** Unknown agent (404). */
  | "not-found"
  /** Not the agent's owner (403). */
  | "forbidden"
  /** The agent's state does not allow it: no charter yet, already launched, launch in progress (409). */
  | "conflict"
  /** The agent wallet cannot pay: the message names the shortfall (422). */
  | "underfunded"
  /** A transaction reverted or the chain refused it: the message carries the reason (502). */
  | "chain";

export class AgentError extends Error {
  override name = "AgentError";
  constructor(
    readonly kind: AgentErrorKind,
    message: string,
  ) {
    super(message);
  }
}
