/**
 * A bar chart of amounts over time whose axis fits its data (api/read/series.ts): one bar
 * per bucket with burns, placed on an axis from the first bucket to now, and the running total
 * as a line of points. Inline SVG, no script; every label in whole units (common/units.ts).
 */
import type { FC } from "hono/jsx";
import { type Unit, showUnits } from "../../common/units.js";
import { HOUR, type Series } from "../read/series.js";

const WIDTH = 600;
const HEIGHT = 140;
const MAX_BAR = 40;

/** A bucket's start as a label: the hour ("2026-11-24 15:00 UTC") or the day. */
export function bucketLabel(start: bigint, bucket: bigint): string {
  const iso = new Date(Number(start) * 1000).toISOString();
  return bucket < 86_400n ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : iso.slice(0, 10);
}

const bucketName = (bucket: bigint) => (bucket === HOUR ? "hour" : bucket === 86_400n ? "day" : "week");

/** Scales `v` of `max` to `span` pixels (bigint ratio, then a number only for the drawing). */
const scale = (v: bigint, max: bigint, span: number) => (max === 0n ? 0 : (Number((v * 100_000n) / max) / 100_000) * span);

export const TimeChart: FC<{ id: string; series: Series | null; unit: Unit; what: string }> = ({ id, series, unit, what }) => {
  if (!series) return <p class="muted" data-chart-empty={id}>{`No ${what} yet.`}</p>;
  const buckets = Number((series.to - series.from) / series.bucket) + 1;
  const slot = WIDTH / buckets;
  const bar = Math.min(MAX_BAR, Math.max(1, slot - 2));
  const max = series.points.reduce((m, p) => (p.value > m ? p.value : m), 0n);
  const total = series.points.reduce((s, p) => s + p.value, 0n);
  let running = 0n;
  const line = series.points.map((p) => {
    running += p.value;
    const i = Number((p.start - series.from) / series.bucket);
    return { x: i * slot + slot / 2, y: HEIGHT - scale(running, total, HEIGHT - 8), running, p };
  });
  return (
    <figure class="chart">
      <svg
        role="img"
        aria-label={`${what} per ${bucketName(series.bucket)}`}
        viewBox={`0 0 ${WIDTH} ${HEIGHT + 20}`}
        width="100%"
        data-chart={id}
        data-bucket={bucketName(series.bucket)}
      >
        <line x1="0" y1={HEIGHT} x2={WIDTH} y2={HEIGHT} stroke="#2a2f3a" />
        {series.points.map((p) => {
          const i = Number((p.start - series.from) / series.bucket);
          const h = Math.max(2, scale(p.value, max, HEIGHT - 8));
          return (
            <rect
              x={(i * slot + (slot - bar) / 2).toFixed(1)}
              y={(HEIGHT - h).toFixed(1)}
              width={bar.toFixed(1)}
              height={h.toFixed(1)}
              fill="#e0663a"
              data-bucket-start={bucketLabel(p.start, series.bucket)}
            >
              <title>{`${bucketLabel(p.start, series.bucket)}: ${showUnits(p.value, unit)}`}</title>
            </rect>
          );
        })}
        <polyline points={line.map((l) => `${l.x.toFixed(1)},${l.y.toFixed(1)}`).join(" ")} fill="none" stroke="#7fb3ff" stroke-width="1.5" />
        {line.map((l) => (
          <circle cx={l.x.toFixed(1)} cy={l.y.toFixed(1)} r="3" fill="#7fb3ff" data-point={bucketLabel(l.p.start, series.bucket)}>
            <title>{`${showUnits(l.running, unit)} in all by ${bucketLabel(l.p.start, series.bucket)}`}</title>
          </circle>
        ))}
        <text x="0" y={HEIGHT + 15} fill="#9aa3b2" font-size="11">
          {bucketLabel(series.from, series.bucket)}
        </text>
        {buckets > 1 ? (
          <text x={WIDTH} y={HEIGHT + 15} fill="#9aa3b2" font-size="11" text-anchor="end">
            {bucketLabel(series.to, series.bucket)}
          </text>
        ) : null}
      </svg>
      <figcaption class="muted">{`Bars: ${what} per ${bucketName(series.bucket)} (largest ${showUnits(max, unit)}); line: the running total, ${showUnits(total, unit)} in all.`}</figcaption>
    </figure>
  );
};
