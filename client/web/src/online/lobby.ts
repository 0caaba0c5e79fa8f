/**
 * The lobby: where an online match starts in the browser (the twin of client/net/lobby.py).
 * {@link createOnline} hosts a room on the page's relay (the one its address names with
 * `?relay=`, else the one that served it), or takes the seat an invite link offers
 * (continuing a match this browser keeps); the peer itself is peer.ts. An invite for
 * another relay is opened as a page of its own (`?relay=`), whose policy lets it reach
 * exactly that relay. {@link browserOnline} is the page's own, with the session in a Web Worker.
 */

import type { Online, OnlinePeer, RulesData, StoredMatch } from "./api.ts";
import {
  boardOfPage, formatInvite, type Invite, InvalidLink, linkIdHex, parseInvite, queryText, relayOfPage, SECRET_BYTES,
} from "./links.ts";
import { type LocalIdentity, loadIdentity } from "./identity.ts";
import type { WorkerReply } from "./messages.ts";
import { failure } from "./outcome.ts";
import { OnlineMatch, type PeerEnvironment, type PeerWorker } from "./peer.ts";
import { BROWSER_TIMERS, newToken } from "./relay.ts";
import { MatchStore, pageStorage } from "./store.ts";

/** The browser's {@link Online}: hosts on, and joins through, the page's relay. */
export function createOnline(env: PeerEnvironment): Online {
  const store = new MatchStore(env.storage);
  let me: LocalIdentity | null = null; // made on first use: this browser's identity for the site
  const identity = (): LocalIdentity => (me ??= loadIdentity(env.storage, env.randomBytes));
  return {
    host(rules: RulesData, board?: string | null): OnlinePeer {
      const secret = env.randomBytes(SECRET_BYTES);
      const linkId = linkIdHex(secret);
      // The friend's link opens the board chosen, else this one (null: the relay's page).
      const friendBoard = board === undefined ? boardOfPage(env.location) : board;
      const peer = new OnlineMatch(env, store, "host", { relay: relayOfPage(env.location), room: null, secret, board: friendBoard },
        linkId, newToken(), null, identity());
      peer.begin({ op: "start", role: "host", secret, rules, identity: identity().secret });
      return peer;
    },
    join(link: string): OnlinePeer {
      let invite: Invite;
      try {
        invite = parseInvite(link);
      } catch (exc) {
        if (!(exc instanceof InvalidLink)) throw exc;
        const room = /\/j\/([A-Za-z0-9_-]{32})(?:$|[?#])/.exec(link)?.[1];
        const why = room !== undefined && store.keeps(room)
          ? "This match is kept in this browser, but not its secret, which is never stored: open the invite link "
            + "itself (the whole link, with the part after #) to continue it."
          : exc.message;
        return OnlineMatch.closed("guest", failure("LocalError", "this browser", "link", why), null, []);
      }
      const here = relayOfPage(env.location);
      if (invite.relay !== here) {
        // The page's policy lets it reach its own relay only: the board opens the link as a
        // page of its own (app.ts), so this is a caller's slip.
        return OnlineMatch.closed("guest", failure("LocalError", "this browser", "link",
          `This invite link is for the relay at ${invite.relay}, and this page plays on ${here}: `
          + "use Join with a link, or open the link itself in the browser's address bar."), null, []);
      }
      const linkId = linkIdHex(invite.secret);
      const entry = store.load(linkId);
      if (entry?.finished != null || (entry !== null && entry.state === null)) {
        return OnlineMatch.closed(entry.role, null,
          `The match of this invite link is over (${entry.finished ?? "ended"}). Ask your friend for a new link to play again.`,
          store.records(linkId));
      }
      // The page's address becomes the link, so that a reload finds the match.
      env.setAddress(formatInvite({ ...invite, board: boardOfPage(env.location) }));
      if (entry !== null && entry.state !== null) {
        // This browser keeps the match: continue it in the role it had (a host's
        // page shows its own invite link, so a reload lands here too).
        const peer = new OnlineMatch(env, store, entry.role, invite, linkId, entry.token, entry.ticket, identity());
        peer.begin({ op: "restore", secret: invite.secret, state: entry.state, identity: identity().secret });
        return peer;
      }
      const peer = new OnlineMatch(env, store, "guest", invite, linkId, newToken(), null, identity());
      peer.begin({ op: "start", role: "guest", secret: invite.secret, rules: null, identity: identity().secret });
      return peer;
    },
    stored(): readonly StoredMatch[] {
      return store.stored();
    },
    forget(link: string): void {
      store.forget(link);
    },
  };
}

/** The SHA-256 of dist/worker.js, written into board.js by the build. */
declare const GIN_WORKER_SHA256: string;

/** The worker built beside board.js (dist/worker.js), asked for by its digest: the
 * service worker (board/sw.ts) then serves this page's build of it, or none. */
export function workerScript(): URL {
  return new URL(`worker.js?sha256=${GIN_WORKER_SHA256}`, import.meta.url);
}

/** The worker built beside board.js (dist/worker.js). */
export function browserWorker(): PeerWorker {
  const worker = new Worker(workerScript());
  const handle: PeerWorker = {
    post: (request) => worker.postMessage(request),
    onReply: null,
    onError: null,
    terminate: () => worker.terminate(),
  };
  worker.onmessage = (ev: MessageEvent<WorkerReply>) => handle.onReply?.(ev.data);
  worker.onerror = (ev: ErrorEvent) => handle.onError?.(ev.message || "its script failed");
  return handle;
}

/** The page's own {@link Online}. */
export function browserOnline(): Online {
  const storage = pageStorage();
  return createOnline({
    storage,
    location: window.location,
    setAddress: (url) => {
      const target = new URL(url);
      // Same origin: only the path, the link's part of the query and the fragment change
      // (the page's own parameters, such as ?bot=, stay), and no request is made.
      if (target.origin === window.location.origin) {
        const query = new URLSearchParams(window.location.search);
        for (const name of ["relay", "room"]) {
          const value = target.searchParams.get(name);
          if (value === null) query.delete(name);
          else query.set(name, value);
        }
        const search = queryText(query);
        window.history.replaceState(null, "", target.pathname + (search ? `?${search}` : "") + target.hash);
      }
    },
    makeWorker: browserWorker,
    timers: BROWSER_TIMERS,
    randomBytes: (n) => crypto.getRandomValues(new Uint8Array(n)),
  });
}
