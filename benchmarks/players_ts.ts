/**
 * Decision time of the TypeScript computer players in node: prints figures,
 * asserts nothing (benchmarks/players_browser.py measures the same in Chromium).
 *
 *     cd client/web && npm run bench:players -- [--hands 300]
 */

import { parseArgs } from "node:util";

import { measure, summary } from "./hard_timing.ts";

const { values } = parseArgs({ options: { hands: { type: "string", default: "300" } } });
const hands = Number(values.hands);
const timing = measure(hands);
console.log(`node ${process.version}: ${hands} hands, Hard against Normal and itself`);
console.log(summary("hard decisions", timing.hard));
console.log(summary("hints", timing.hints));
