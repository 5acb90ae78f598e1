/**
 * The pages' tables of rows (recent burns, buybacks, desks, log, tokens, activity): a header row,
 * then a row per item, in a box that scrolls sideways on a narrow screen; or one line saying
 * there is nothing yet. A column declares its header, whether it holds figures (right-aligned,
 * `num`), the `data-field` its cells carry for scripts and tests, and how a row fills its cell.
 */
import type { Child } from "hono/jsx";

export type Column<T> = {
  head: Child;
  /** A figure: right-aligned (`class="num"`). */
  num?: boolean;
  /** Each cell's `data-field`. */
  field?: string;
  cell: (row: T) => Child;
};

/** Attributes of a row's `<tr>` (its `data-*` keys). */
export type RowAttributes = Record<`data-${string}`, string>;

export function Table<T>(p: {
  /** The table's `data-table`. */
  name: string;
  columns: Column<T>[];
  rows: readonly T[];
  /** Shown instead of the table when there is no row; without it, the header alone. */
  empty?: string;
  row?: (item: T) => RowAttributes;
  /** Rows after the items (a total). */
  children?: Child;
}) {
  if (p.rows.length === 0 && p.empty !== undefined) return <p class="muted">{p.empty}</p>;
  return (
    <div class="scroll">
      <table data-table={p.name}>
        <tr>
          {p.columns.map((c) => (
            <th class={c.num ? "num" : undefined}>{c.head}</th>
          ))}
        </tr>
        {p.rows.map((item) => (
          <tr {...(p.row?.(item) ?? {})}>
            {p.columns.map((c) => (
              <td class={c.num ? "num" : undefined} data-field={c.field}>
                {c.cell(item)}
              </td>
            ))}
          </tr>
        ))}
        {p.children}
      </table>
    </div>
  );
}
