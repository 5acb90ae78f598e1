/**
 * Times on the pages: one readable UTC string ("2026-11-27 16:24:59 UTC"), never the raw ISO
 * text. In a table cell it stays on one line (`.when`), with the exact instant in `datetime`.
 */
import type { FC } from "hono/jsx";

type Instant = Date | bigint | number;

/** A `Date`, or unix seconds. */
const toDate = (t: Instant) => (t instanceof Date ? t : new Date(Number(t) * 1000));

/** "2026-11-27 16:24:59 UTC"; a time no `Date` can hold is shown as it came. */
export function utcTime(t: Instant): string {
  const d = toDate(t);
  if (Number.isNaN(d.getTime())) return String(t);
  const iso = d.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/** A time in a table cell: one line, the ISO instant for machines. */
export const When: FC<{ t: Instant }> = ({ t }) => {
  const d = toDate(t);
  return (
    <time class="when" datetime={Number.isNaN(d.getTime()) ? undefined : d.toISOString().replace(/\.\d{3}Z$/, "Z")}>
      {utcTime(t)}
    </time>
  );
};
