/**
 * The TypeScript engine of gin: the same rules, results and text forms as the
 * Python package gin/, module for module, held to it by the conformance corpus
 * (`python -m gin.conformance`, `npm run conformance`).
 *
 * - Cards: {@link Card}, {@link parseCards}, {@link DECK}; hands as 52-bit masks
 *   ({@link Mask}, {@link cardsMask}, {@link maskCards}).
 * - Melds: {@link bestArrangement} (exact least deadwood), {@link bestDiscard}
 *   (exact best discard of eleven), {@link Arrangement}; on masks
 *   {@link arrangeMask}, {@link discardMask}, {@link discardTable}.
 * - Lay-offs and scoring: {@link bestDefenceCards}, {@link settle},
 *   {@link Outcome}, {@link matchTotals}.
 * - Rules: {@link Ruleset} and the presets `standard`, `classic`, `oklahoma`
 *   ({@link ruleset}, {@link PRESETS}).
 * - State machines: {@link Hand} (one hand, explicit {@link Phase}) and
 *   {@link Match}; actions ({@link parseAction}); {@link Observation}, what one
 *   player may see.
 * - Errors: {@link GinError}, {@link MalformedInput}, {@link IllegalAction},
 *   {@link PeerFault}.
 *
 * Names follow gin/'s in camelCase (`best_arrangement` → `bestArrangement`).
 */

export {
  type Action, BigGin, Discard, DrawPile, DrawStock, Knock, LayOff, parseAction, Pass, sameAction,
} from "./actions.ts";
export {
  Card, cardsMask, DECK, formatCards, maskCards, maskText, parseCards, RANKS, SUIT_GLYPHS, SUIT_NAMES, SUITS,
} from "./cards.ts";
export { GinError, IllegalAction, MalformedInput, PeerFault } from "./errors.ts";
export {
  dealtPositions, FIRST_STOCK_POSITION, Hand, type HandData, shuffledDeck, stackedDeck, UPCARD_POSITION,
} from "./hand.ts";
export { bestDefence, bestDefenceCards, checkDefence, Defence, layoffClosure, type LayoffMask } from "./layoffs.ts";
export { type Mask } from "./mask.ts";
export { Match, type MatchData } from "./match.ts";
export {
  allArrangements, arrangeMask, Arrangement, bestArrangement, bestDiscard, checkMeld, deadwood, discardMask,
  DiscardOption, discardTable, isMeldMask, maskValue, type Meld,
} from "./melds.ts";
export {
  type Event, type EventKind, type HandEndKind, HandResult, Observation, type ObservationFields, Phase,
} from "./observation.ts";
export {
  BOUNDS, CLASSIC, CUSTOM, OKLAHOMA, PRESETS, Ruleset, RulesError, type RulesetFields, ruleset, type ShutoutRule,
  STANDARD,
} from "./rules.ts";
export { matchTotals, MatchTotals, Outcome, type OutcomeData, type OutcomeKind, settle } from "./scoring.ts";
