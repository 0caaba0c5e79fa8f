/**
 * The board's service worker (bundled into dist/sw.js, with this build's table of files
 * and their SHA-256, and the build's digest, written in by the build).
 *
 * It keeps exactly one build of the board: installing, it fetches every file of its
 * table but the online worker and refuses the whole build if any answer is not the file
 * of its table (a site that changed meanwhile); then the board opens from it with no
 * network (against the computer). The online worker (most of the board's bytes:
 * libsodium's WebAssembly) is fetched when a page first asks for it, and kept only if it
 * is this build's. A newer build waits until the page asks for it (the player's click,
 * install.ts) or until no page of the old one is open. It answers only for the board's
 * own files: the relay's answers (`/new`, `/version`, an invite's `/j/ROOM`, anything
 * else) and websockets go to the network untouched and are never kept. A file asked
 * for by its digest (`worker.js?sha256=…`: a page asks for the worker of its own
 * build) is served only if it is that file, from this build or an older one kept, or
 * from the network; otherwise not at all.
 */

declare const GIN_BUILD: string;
declare const GIN_FILES: Record<string, string>;

interface ExtendableEvent extends Event {
  waitUntil(done: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  readonly request: Request;
  respondWith(answer: Promise<Response>): void;
}
interface ExtendableMessageEvent extends ExtendableEvent {
  readonly data: unknown;
  readonly ports: readonly MessagePort[];
}
interface WorkerScope {
  readonly registration: { readonly scope: string };
  readonly clients: {
    claim(): Promise<void>;
    matchAll(options: { type: "window"; includeUncontrolled: boolean }): Promise<readonly unknown[]>;
  };
  skipWaiting(): Promise<void>;
  addEventListener(type: "install" | "activate", listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: "fetch", listener: (event: FetchEvent) => void): void;
  addEventListener(type: "message", listener: (event: ExtendableMessageEvent) => void): void;
}

const sw = self as unknown as WorkerScope;
const PREFIX = "gin-board-";
const CACHE = PREFIX + GIN_BUILD;
const BASE = new URL(sw.registration.scope);
/** Fetched when first asked for, not at install: only online play (and the records
 * window) runs the worker. */
const LATER = new Set(["worker.js"]);
/** What a kept file keeps of the headers it was served with (the worker's own policy too). */
const KEPT = ["content-type", "content-security-policy", "x-content-type-options", "referrer-policy"];

async function sha256(body: ArrayBuffer): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", body));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

function kept(headers: Headers, policy: Headers = headers): Headers {
  const out = new Headers();
  for (const name of KEPT) {
    const value = (name === "content-security-policy" ? policy : headers).get(name);
    if (value !== null) out.set(name, value);
  }
  return out;
}

/** The file `name` from the network, if it is the one with `digest`; else null. */
async function checked(name: string, digest: string): Promise<Response | null> {
  const answer = await fetch(new URL(name, BASE), { cache: "no-cache", credentials: "omit" });
  const body = await answer.arrayBuffer();
  if (!answer.ok || (await sha256(body)) !== digest) return null;
  return new Response(body, { headers: kept(answer.headers) });
}

sw.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    try {
      for (const [name, digest] of Object.entries(GIN_FILES)) {
        if (LATER.has(name)) continue;
        const answer = await checked(name, digest);
        if (answer === null) throw new Error(`the site serves another ${name} than this build's`);
        await cache.put(new URL(name, BASE), answer);
      }
    } catch (exc) {
      await caches.delete(CACHE); // no part of a build is kept
      throw exc;
    }
  })());
});

sw.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    // Older builds are dropped once no other page may still be running one (its worker).
    const pages = await sw.clients.matchAll({ type: "window", includeUncontrolled: true });
    if (pages.length <= 1) {
      for (const name of await caches.keys()) {
        if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
      }
    }
    await sw.clients.claim();
  })());
});

sw.addEventListener("message", (event) => {
  if (event.data === "build") event.ports[0]?.postMessage(GIN_BUILD);
  else if (event.data === "take") event.waitUntil(sw.skipWaiting());
});

/** The board's file a request within the scope names (`j/NAME` with a digest too), or null. */
function fileOf(url: URL): string | null {
  if (url.origin !== BASE.origin || !url.pathname.startsWith(BASE.pathname)) return null;
  let name = url.pathname.slice(BASE.pathname.length) || "index.html";
  if (name.startsWith("j/") && url.searchParams.has("sha256")) name = name.slice(2);
  return name in GIN_FILES ? name : null;
}

/** The file whose digest is `digest`: from a kept build, else the network; else a refusal. */
async function byDigest(name: string, digest: string): Promise<Response> {
  const builds = (await caches.keys()).filter((key) => key.startsWith(PREFIX));
  for (const key of [CACHE, ...builds.filter((b) => b !== CACHE)]) {
    const found = await (await caches.open(key)).match(new URL(name, BASE));
    if (found === undefined) continue;
    const body = await found.arrayBuffer();
    if ((await sha256(body)) === digest) return new Response(body, { headers: found.headers });
  }
  const answer = await checked(name, digest).catch(() => null);
  if (answer === null) return new Response(`${name} of that build is not to be had here`, { status: 503 });
  if (GIN_FILES[name] === digest) await (await caches.open(CACHE)).put(new URL(name, BASE), answer.clone());
  return answer;
}

async function serve(request: Request, name: string, url: URL): Promise<Response> {
  const digest = url.searchParams.get("sha256");
  if (digest !== null) return byDigest(name, digest);
  const found = await (await caches.open(CACHE)).match(new URL(name, BASE));
  if (found === undefined) return byDigest(name, GIN_FILES[name]!); // not yet kept: this build's, or nothing
  if (request.mode === "navigate" && url.searchParams.has("relay")) {
    // A page naming its relay gets the site's policy for that address (a relay's lets it
    // reach that relay), with this build's page; offline, the policy kept.
    try {
      const answer = await fetch(request);
      if (answer.ok) return new Response(await found.arrayBuffer(), { headers: kept(found.headers, answer.headers) });
    } catch {
      // offline: as kept
    }
  }
  return found;
}

sw.addEventListener("fetch", (event) => {
  if (event.request.method !== "GET") return;
  const url = new URL(event.request.url);
  const name = fileOf(url);
  if (name !== null) event.respondWith(serve(event.request, name, url));
});
