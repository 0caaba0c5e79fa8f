/**
 * The board as an app: its manifest (a phone installs it to the home screen) and its
 * service worker (sw.ts: the board opens and plays the computer with no network).
 *
 * A newer build found on the site waits in its service worker; the page says so, with
 * the build's digest, and takes it on the player's click: at once between hands against
 * the computer or outside an online match, else as soon as the hand (the online match:
 * one build from its start to its end) is over. Otherwise it is taken at the next start
 * of the board, once no page of it is open.
 */

import { Phase } from "../engine/observation.ts";
import { byId } from "./dom.ts";
import type { Play } from "./play.ts";
import { updateWords } from "./words.ts";

/** When a new build may start: now, after the hand in play (against the computer), or
 * after the online match under way. */
export type Free = "now" | "hand" | "match";

export function whenFree(play: Play): Free {
  if (play.online) return play.totals !== null || play.stopped() !== null ? "now" : "match";
  const obs = play.observation();
  return obs === null || obs.phase === Phase.OVER ? "now" : "hand";
}

/** The build a waiting service worker holds, by its digest. */
function buildOf(worker: ServiceWorker): Promise<string> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = (ev: MessageEvent<string>) => resolve(String(ev.data));
    worker.postMessage("build", [channel.port2]);
  });
}

/**
 * Register the board's service worker at `base` (the board's folder, whatever page of it
 * this is: an invite's `j/ROOM` too), and announce a newer build in #update. `free` says
 * when it may start; the returned function looks again (after each change of the table):
 * a build the player chose mid-hand starts as soon as the hand is over.
 */
export function setUpInstall(base: string, free: () => Free): () => void {
  // The manifest beside the board's files (an invite's page is one folder down).
  byId<HTMLLinkElement>("manifest").href = `${base}manifest.webmanifest`;
  const box = byId("update");
  const button = byId<HTMLButtonElement>("btn-update");
  let waiting: ServiceWorker | null = null;
  let chosen = false; // the player asked for it
  let taking = false; // and it is being taken
  const show = (): void => {
    if (waiting === null || taking) return;
    const when = free();
    if (chosen && when === "now") {
      taking = true;
      // Already started by another page of the board: this one only opens on it.
      if (waiting.state === "activated") window.location.reload();
      else waiting.postMessage("take");
    }
    button.textContent = updateWords.button(when);
    button.disabled = chosen;
    byId("update-when").textContent = updateWords.when(when, chosen);
  };
  if (!("serviceWorker" in navigator)) return show; // no offline board here (an insecure origin)
  const announce = (worker: ServiceWorker): void => {
    waiting = worker;
    void buildOf(worker).then((build) => {
      if (waiting !== worker) return;
      byId("update-text").textContent = updateWords.ready(build);
      box.hidden = false;
      show();
    });
  };
  button.addEventListener("click", () => {
    chosen = true;
    show();
  });
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (taking) window.location.reload(); // this page asked for it: it opens on the new build
  });
  navigator.serviceWorker.register(`${base}sw.js`, { scope: base, updateViaCache: "none" }).then((reg) => {
    const watch = (worker: ServiceWorker | null): void => {
      if (worker === null) return;
      const check = (): void => {
        // A first install has nothing to announce: it serves the build already shown.
        if (worker.state === "installed" && navigator.serviceWorker.controller !== null) announce(worker);
      };
      worker.addEventListener("statechange", check);
      check();
    };
    watch(reg.waiting);
    reg.addEventListener("updatefound", () => watch(reg.installing));
    // An app left open for days looks for a new build when it is looked at again.
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") reg.update().catch(() => undefined);
    });
  }, () => undefined); // no service worker (storage refused, offline at first): the board as before
  return show;
}
