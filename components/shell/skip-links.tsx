"use client";
import type { MouseEvent } from "react";

/** Where "Skip to canvas toolbar" lands: the graph editor's toolbar carries this id. */
export const CANVAS_TOOLBAR_ID = "canvas-toolbar";

const FOCUSABLE = 'button:not([disabled]), a[href], input:not([disabled]), select, [tabindex="0"]';

/**
 * Moves focus (not just the scroll position) to the target: a <main> itself, so the next Tab
 * starts inside the page; anything else to its first control (a toolbar is not a tab stop, its
 * buttons are). A missing target (the editor's JSON view has no canvas) falls back to main.
 */
function skipTo(e: MouseEvent<HTMLAnchorElement>, id: string) {
  const target = document.getElementById(id) ?? document.getElementById("main");
  if (!target) return;
  e.preventDefault();
  let into = target;
  if (target.tagName === "MAIN") {
    if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
  } else {
    into = target.querySelector<HTMLElement>(FOCUSABLE) ?? target;
  }
  into.focus();
  into.scrollIntoView({ block: "nearest" });
}

/** The first Tab stop of every page (root layout); `.skip-link` shows it only while focused. */
export function SkipToMain() {
  return (
    <a className="skip-link" href="#main" onClick={(e) => skipTo(e, "main")}>
      Skip to main content
    </a>
  );
}

/** The editor's second Tab stop: straight to the canvas toolbar past the app header. */
export function SkipToCanvas() {
  return (
    <a
      className="skip-link"
      href={`#${CANVAS_TOOLBAR_ID}`}
      onClick={(e) => skipTo(e, CANVAS_TOOLBAR_ID)}
    >
      Skip to canvas toolbar
    </a>
  );
}
