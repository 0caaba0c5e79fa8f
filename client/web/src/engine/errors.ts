/**
 * The one error tree, as in gin/engine/errors.py.
 *
 * - `MalformedInput`: text or data that cannot be understood (a bad card token,
 *   a corrupt saved record). The caller's input is wrong.
 * - `IllegalAction`: a well-formed action the rules forbid right now. The state
 *   is unchanged.
 * - `PeerFault`: the remote peer broke the protocol or cheated; `who` names the
 *   side at fault and `field` what was wrong.
 */

/** Base class of every error this engine raises on purpose. */
export class GinError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Input that cannot be parsed or fails its schema; names the input. */
export class MalformedInput extends GinError {}

/** A well-formed action the rules do not allow now; names action, player, phase. */
export class IllegalAction extends GinError {}

/** The remote peer broke the protocol or the rules of the fair deal. */
export class PeerFault extends GinError {
  readonly who: string;
  readonly field: string;

  constructor(message: string, who: string, field = "") {
    super(message);
    this.who = who;
    this.field = field;
  }
}
