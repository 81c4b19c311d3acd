// The one way a bundle writes markup: tags and attribute names are this file's literals, and every text and every
// attribute value goes through `escapeHtml`, so no WAL text is ever markup. Markup of our own that is not a tag
// (the report's sections, the inline style and script) comes in as `Trusted`, made only by `trusted` from a
// constant or from a renderer that escapes (src-shared/report-html.ts).
import { escapeHtml, jsonBlockText } from '../../src-shared/report-html.js';

type Tag = 'section' | 'h2' | 'h3' | 'p' | 'div' | 'span' | 'ol' | 'ul' | 'li' | 'table' | 'thead' | 'tbody' | 'tr' | 'th' | 'td' | 'pre' | 'button' | 'details' | 'summary' | 'strong' | 'nav' | 'a';
type Attribute = 'id' | 'class' | 'hidden' | 'href' | 'type' | 'scope' | 'data-kind' | 'data-step-index' | 'data-role' | 'data-field' | 'data-left-out' | 'aria-live' | 'title';

export interface Trusted {
  readonly html: string;
}

export function trusted(html: string): Trusted {
  return { html };
}

export class HtmlWriter {
  private readonly chunks: string[] = [];
  private bytes = 0;

  get size_bytes(): number {
    return this.bytes;
  }

  open(tag: Tag, attributes: Partial<Record<Attribute, string | number>> = {}): this {
    let markup = `<${tag}`;
    for (const [name, value] of Object.entries(attributes)) markup += ` ${name}="${escapeHtml(String(value))}"`;
    return this.push(`${markup}>`);
  }

  close(tag: Tag): this {
    return this.push(`</${tag}>`);
  }

  text(value: string): this {
    return this.push(escapeHtml(value));
  }

  /** `<tag attributes>text</tag>`. */
  element(tag: Tag, text: string, attributes: Partial<Record<Attribute, string | number>> = {}): this {
    return this.open(tag, attributes).text(text).close(tag);
  }

  raw(markup: Trusted): this {
    return this.push(markup.html);
  }

  /** Another writer's markup, appended whole. */
  append(other: HtmlWriter): this {
    for (const chunk of other.chunks) this.push(chunk);
    return this;
  }

  toString(): string {
    return this.chunks.join('');
  }

  private push(markup: string): this {
    this.chunks.push(markup);
    this.bytes += Buffer.byteLength(markup, 'utf8');
    return this;
  }
}

/** JSON inside a `<script type="application/json">` block (report-html.ts' `jsonBlockText`). */
export function scriptJson(value: unknown): Trusted {
  return trusted(jsonBlockText(value));
}
