/** A desk as REST JSON: USDC amounts and perps prices as exact decimals. */
import type { DeskView } from "../read/desks.js";
import { isoTime, perpsDecimal, usdcAmount } from "../read/format.js";

export const deskJson = (d: DeskView) => ({
  id: d.id,
  token: d.token,
  venue: d.venue.id,
  protocol: d.venue.protocol,
  pairIndex: Number(d.pairIndex),
  tradeIndex: Number(d.tradeIndex),
  status: d.status,
  halted: d.halted,
  haltReason: d.haltReason,
  side: d.side,
  collateral: usdcAmount(d.collateral),
  leverage: perpsDecimal(d.leverage),
  notional: usdcAmount(d.notional),
  entryPrice: perpsDecimal(d.entryPrice),
  markPrice: d.markPrice === null ? null : perpsDecimal(d.markPrice),
  liquidationPrice: d.liquidationPrice === null ? null : perpsDecimal(d.liquidationPrice),
  unrealisedPnl: d.unrealisedPnl === null ? null : usdcAmount(d.unrealisedPnl),
  realisedPnl: usdcAmount(d.realisedPnl),
  usdcReturned: usdcAmount(d.usdcReturned),
  openedAt: isoTime(d.openedAt),
  closedAt: d.closedAt === null ? null : isoTime(d.closedAt),
  openTx: d.openTx,
});
