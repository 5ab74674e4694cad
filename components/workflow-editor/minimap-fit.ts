/**
 * fitView padding that keeps the graph clear of the mini map. The mini map sits in the canvas's
 * bottom-right corner; fitting the graph into the canvas minus either the mini map's column
 * (right) or its row (bottom) means no node is drawn under it after a fit. Of the two, the one
 * that lets the graph be drawn larger is taken: a tall graph gives up the right strip, a wide
 * one the bottom strip.
 *
 *   ┌──────────────────────┬─────┐      ┌────────────────────────────┐
 *   │        graph         │     │      │           graph            │
 *   │                      │     │      ├────────────────────┬───────┤
 *   │                      │ map │      │                    │  map  │
 *   └──────────────────────┴─────┘      └────────────────────┴───────┘
 *          right strip                         bottom strip
 */
export interface Size {
  readonly width: number;
  readonly height: number;
}
export interface Rect extends Size {
  readonly x: number;
  readonly y: number;
}

/** React Flow's MiniMap default size, and its panel's margin from the canvas edges. */
export const MINIMAP = { width: 200, height: 150, margin: 15 } as const;
/** Room kept on every side (the zoom controls sit bottom-left inside it). */
export const FIT_MARGIN = 48;

export interface FitPadding {
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
  readonly left: number;
}

const reserveX = MINIMAP.width + 2 * MINIMAP.margin;
const reserveY = MINIMAP.height + 2 * MINIMAP.margin;

function zoomFor(graph: Size, view: Size, p: FitPadding): number {
  const w = view.width - p.left - p.right;
  const h = view.height - p.top - p.bottom;
  return Math.min(w / Math.max(graph.width, 1), h / Math.max(graph.height, 1));
}

/** Padding (screen px) for fitting a graph of `graph` size into a canvas of `view` size. */
export function minimapClearPadding(graph: Size, view: Size): FitPadding {
  const m = FIT_MARGIN;
  const right = { top: m, right: Math.max(m, reserveX), bottom: m, left: m };
  const bottom = { top: m, right: m, bottom: Math.max(m, reserveY), left: m };
  if (view.width <= 0 || view.height <= 0) return right;
  return zoomFor(graph, view, bottom) > zoomFor(graph, view, right) ? bottom : right;
}

/** Where a fit puts the graph on screen (as React Flow does: zoom to fit, clamp, centre). */
export function fittedRect(graph: Size, view: Size, p: FitPadding, maxZoom = 1): Rect {
  const zoom = Math.min(zoomFor(graph, view, p), maxZoom);
  const w = graph.width * zoom;
  const h = graph.height * zoom;
  return {
    x: p.left + (view.width - p.left - p.right - w) / 2,
    y: p.top + (view.height - p.top - p.bottom - h) / 2,
    width: w,
    height: h,
  };
}

/** The mini map's box on screen in a canvas of `view` size. */
export function minimapRect(view: Size): Rect {
  return {
    x: view.width - MINIMAP.margin - MINIMAP.width,
    y: view.height - MINIMAP.margin - MINIMAP.height,
    width: MINIMAP.width,
    height: MINIMAP.height,
  };
}

export function intersects(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}
