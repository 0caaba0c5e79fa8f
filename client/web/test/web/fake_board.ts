// The board with the fake online peer, for tests/web (built by the test into a
// temporary folder; never served by the relay). `window.fakeSetup`, set before
// this script runs, configures the fake; `window.fake` steers it.
import { startBoard } from "../../src/board/app.ts";
import { FakeOnline, type FakeSetup } from "./fake_peer.ts";

const w = window as unknown as { fakeSetup?: FakeSetup; fake?: FakeOnline };
w.fake = new FakeOnline(w.fakeSetup ?? {});
startBoard(w.fake);
