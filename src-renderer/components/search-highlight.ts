// Marks every occurrence of the search text inside an element with the CSS Custom Highlight API: the DOM is
// left as React made it (WAL text stays plain text nodes; no markup is built from it), the browser paints
// the ranges (styles.css, ::highlight). Rows arrive page by page, so the ranges are remade on every change
// below the element, at most once a frame.
import { useEffect, type RefObject } from 'react';

export const SEARCH_HIGHLIGHT = 'walscope-search';
/** Ranges painted at most: a one-letter search over a full pane must not make a million ranges. */
const RANGES_MAX = 2_000;

export function useSearchHighlight(container: RefObject<HTMLElement | null>, query: string): void {
  useEffect(() => {
    const element = container.current;
    const needle = query.trim().toLowerCase();
    if (element === null || needle === '' || typeof CSS === 'undefined' || CSS.highlights === undefined) return;
    let frame: number | null = null;
    const paint = () => {
      frame = null;
      const highlight = new Highlight();
      for (const range of rangesOf(element, needle)) highlight.add(range);
      CSS.highlights.set(SEARCH_HIGHLIGHT, highlight);
    };
    const schedule = () => { frame ??= requestAnimationFrame(paint); };
    paint();
    const observer = new MutationObserver(schedule);
    observer.observe(element, { subtree: true, childList: true, characterData: true });
    return () => {
      observer.disconnect();
      if (frame !== null) cancelAnimationFrame(frame);
      CSS.highlights.delete(SEARCH_HIGHLIGHT);
    };
  }, [container, query]);
}

function rangesOf(element: HTMLElement, needle: string): Range[] {
  const ranges: Range[] = [];
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node !== null && ranges.length < RANGES_MAX; node = walker.nextNode()) {
    const raw = node.nodeValue ?? '';
    const text = raw.toLowerCase();
    // A few characters change length when lowercased: offsets would not fit the node; such text goes unpainted.
    if (text.length !== raw.length) continue;
    for (let at = text.indexOf(needle); at !== -1 && ranges.length < RANGES_MAX; at = text.indexOf(needle, at + needle.length)) {
      const range = new Range();
      range.setStart(node, at);
      range.setEnd(node, at + needle.length);
      ranges.push(range);
    }
  }
  return ranges;
}
