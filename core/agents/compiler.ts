/**
 * The deterministic charter compiler behind `charter/chat`: reads what the creator said
 * (split percentages, leverage, desk market, drawdown, take-profit, buyback minimum,
 * strategy, persona name and voice), fills the rest from the default charter, and lists the
 * questions still open. Later messages override earlier ones. Pure: same messages, same answer.
 */
import { CONFIGURABLE_BPS, DEFAULT_SPLIT } from "../../common/constants.js";
import { USDC_DECIMALS, formatDecimal, parseDecimal } from "../../common/money.js";
import {
  BUYBACK_MIN_RANGE_USDC,
  type Charter,
  DEFAULT_LIMITS,
  type DeskMarket,
  LEVERAGE_RANGE,
  type Strategy,
  charterSchema,
  defaultCharter,
  hasTwoDecimals,
  pctToBps,
} from "./charter.js";

export type ChatMessage = { role: "user" | "assistant" | "system"; content: string };

export type CompiledCharter = {
  charter: Charter;
  /** What is still open (a default was applied, or what was said cannot be used). */
  questions: string[];
  /** Fields taken from what the creator said. */
  understood: string[];
};

export interface CharterCompiler {
  readonly source: "compiler" | "inference";
  compile(messages: ChatMessage[], defaults: Charter): Promise<CompiledCharter>;
}

const NUM = String.raw`(\d{1,4}(?:\.\d+)?)`;
const PCT = String.raw`\s*(?:%|\s+percent\b|\s*pct\b)`;

type Leg = "asset" | "perp" | "creator";
const LEG_WORDS: Record<Leg, string> = {
  asset: String.raw`(?:the\s+)?(?:secondary[\s-]+asset|asset|staking|stake)`,
  perp: String.raw`(?:the\s+)?(?:perps?(?:[\s-]+desk)?|trading[\s-]+desk|desk|futures)`,
  creator: String.raw`(?:the\s+)?(?:creator|me|myself|my\s+wallet|dev)`,
};

/** Replaces each match by spaces (so later patterns cannot reuse its words), returning the captures. */
function take(text: { value: string }, re: RegExp): RegExpExecArray[] {
  const found: RegExpExecArray[] = [];
  const global = new RegExp(re.source, re.flags.includes("g") ? re.flags : `${re.flags}g`);
  for (const m of text.value.matchAll(global)) found.push(m as RegExpExecArray);
  for (const m of found) text.value = text.value.slice(0, m.index) + " ".repeat(m[0].length) + text.value.slice(m.index! + m[0].length);
  return found;
}

const last = <T>(items: T[]): T | undefined => items[items.length - 1];
const num = (s: string) => Number(s);

type Statements = {
  split?: { asset?: number; perp?: number; creator?: number; default?: boolean };
  market?: DeskMarket;
  leverage?: number;
  drawdown?: number;
  takeProfit?: number;
  buybackMin?: string;
  strategy?: Strategy;
  name?: string;
  voice?: string;
};

/** What one message states. */
export function readStatements(message: string): Statements {
  const s: Statements = {};
  const text = { value: message.replace(/[\u2018\u2019]/g, "'").replace(/[\u201c\u201d]/g, '"') };

  // Persona first (names may contain words the other patterns look for).
  const named = last(
    take(
      text,
      /\b(?:call\s+(?:it|him|her|them|the\s+agent|my\s+agent|the\s+token)|(?:its|the\s+agent'?s?|my\s+agent'?s?|persona)\s+name\s+(?:is|:)|name\s+(?:it|the\s+agent|my\s+agent)|named|persona\s*(?:is|:))\s*:?\s*["']?([A-Za-z0-9][\w'-]*(?:[ ][A-Z0-9][\w'-]*){0,3})["']?(?:\s*,\s*((?:an?|the)\s+[^.;!?\n]{1,200}))?/i,
    ),
  );
  if (named) {
    s.name = named[1]!.trim();
    if (named[2]) s.voice = named[2].trim();
  }
  const voice = last(
    take(
      text,
      /\b(?:(?:voice|tone|style|personality)\s*(?:is|:|=|should\s+be|of)?\s*|(?:speaks?|talks?|sounds?|writes?)\s+(?:like|in|with)\s+)((?:an?\s+)?[^.;!?\n]{1,200})/i,
    ),
  );
  if (voice) s.voice = voice[1]!.trim();

  const lower = { value: text.value.toLowerCase() };

  // Limits before the split, so "halt the desk at 15% drawdown" is not a perp leg.
  const drawdown = last([
    ...take(lower, new RegExp(String.raw`${NUM}${PCT}\s*(?:max(?:imum)?\s+)?(?:draw[\s-]?down|loss)`)),
    ...take(lower, new RegExp(String.raw`(?:draw[\s-]?down|stop[\s-]?loss)(?:\s+(?:limit|cap|of|at|is|to|max(?:imum)?|halt|stop))*\s*:?\s*${NUM}${PCT}`)),
  ]);
  if (drawdown) s.drawdown = num(drawdown[1]!);

  const takeProfit = last([
    ...take(lower, new RegExp(String.raw`take[\s-]?profits?(?:\s+(?:at|of|is|when|above|over|:))*\s*:?\s*${NUM}${PCT}`)),
    ...take(lower, new RegExp(String.raw`${NUM}${PCT}\s*(?:take[\s-]?profits?|profit\s+target)`)),
  ]);
  if (takeProfit) s.takeProfit = num(takeProfit[1]!);

  const buyback = last([
    ...take(lower, new RegExp(String.raw`(?:min(?:imum)?\s+)buybacks?(?:\s+(?:size|amount|of|is|at))*\s*:?\s*\$?\s*${NUM}\s*(?:usdc|usd|dollars|\$)?`)),
    ...take(
      lower,
      new RegExp(String.raw`buybacks?(?:\s+(?:min(?:imum)?|above|over|of|at\s+least|from|once|when|is|:))+\s*\$?\s*${NUM}\s*(?:usdc|usd|dollars|\$)?`),
    ),
  ]);
  if (buyback) s.buybackMin = buyback[1]!;

  const leverage = last([
    ...take(
      lower,
      new RegExp(String.raw`leverage(?:\s+(?:of|at|up\s+to|max(?:imum)?|cap(?:ped)?|limit|is|to|no\s+more\s+than|under|below|:))*\s*:?\s*${NUM}\s*x?\b`),
    ),
    ...take(lower, new RegExp(String.raw`${NUM}\s*x\b(?:\s+(?:max(?:imum)?\s+)?leverage)?`)),
  ]);
  if (leverage) s.leverage = num(leverage[1]!);

  if (/\bdefault\s+split\b|\bsplit\b[^.;!?\n]{0,20}\bdefault\b/.test(lower.value)) s.split = { default: true };
  const triple = last(take(lower, new RegExp(String.raw`${NUM}\s*%?\s*/\s*${NUM}\s*%?\s*/\s*${NUM}\s*%?`)));
  if (triple) s.split = { asset: num(triple[1]!), perp: num(triple[2]!), creator: num(triple[3]!) };
  for (const leg of ["asset", "perp", "creator"] as Leg[]) {
    const word = LEG_WORDS[leg];
    const found = last([
      ...take(lower, new RegExp(String.raw`${NUM}${PCT}\s*(?:of\s+(?:the\s+)?(?:lp\s+)?fees\s*)?(?:to|for|into|on|in|goes\s+to)?\s*(?:my\s+)?${word}\b`)),
      ...take(lower, new RegExp(String.raw`\b${word}(?:\s+leg)?\s*(?:gets|get|at|=|:|to|of|takes|share)?\s*${NUM}${PCT}`)),
    ]);
    if (found) s.split = { ...(s.split?.default ? {} : s.split), [leg]: num(found[1]!) };
  }

  const market = last(
    [...lower.value.matchAll(/\b(btc|bitcoin|eth|ether|ethereum)\b/g)].map((m) => (m[1]!.startsWith("b") ? "BTC/USD" : "ETH/USD") as DeskMarket),
  );
  if (market) s.market = market;

  const strategy = last(
    [...lower.value.matchAll(/\b(momentum|trend[\s-]?following|trend|hold|hodl|passive|buy[\s-]and[\s-]hold|long[\s-]only)\b/g)].map(
      (m) => (/momentum|trend/.test(m[1]!) ? "momentum" : "hold") as Strategy,
    ),
  );
  if (strategy) s.strategy = strategy;
  return s;
}

/** Merges what every user message says, later over earlier. */
function mergeStatements(messages: ChatMessage[]): Statements {
  const out: Statements = {};
  for (const m of messages) {
    if (m.role !== "user") continue;
    const s = readStatements(m.content);
    for (const [k, v] of Object.entries(s) as [keyof Statements, never][]) {
      if (k === "split" && out.split && !(s.split as Statements["split"])?.default) {
        out.split = { ...(out.split.default ? {} : out.split), ...(v as object) };
      } else out[k] = v;
    }
  }
  return out;
}

const pct = (bps: number) => bps / 100;

/** Completes a split from the legs given: two legs fix the third; one leg shares the rest in the default proportion. */
function completeSplit(given: NonNullable<Statements["split"]>): { split?: Charter["mandate"]["split"]; question?: string } {
  const legs = (["asset", "perp", "creator"] as Leg[]).filter((l) => given[l] !== undefined);
  for (const l of legs) {
    if (!hasTwoDecimals(given[l]!) || given[l]! > 95)
      return { question: `The ${l} leg of ${given[l]}% cannot be used: each leg is 0 to 95% with at most two decimals. How should the 95% be split?` };
  }
  const bps = Object.fromEntries(legs.map((l) => [l, pctToBps(given[l]!)])) as Partial<Record<Leg, number>>;
  const sum = legs.reduce((a, l) => a + bps[l]!, 0);
  const defaults: Record<Leg, number> = { asset: DEFAULT_SPLIT.assetBps, perp: DEFAULT_SPLIT.perpBps, creator: DEFAULT_SPLIT.creatorBps };
  if (legs.length === 3) {
    if (sum !== CONFIGURABLE_BPS) {
      return {
        question: `Your split adds to ${sum / 100}%; the asset, perp and creator legs must add to 95% (the protocol's 5% is fixed). How should it be split?`,
      };
    }
  } else if (legs.length === 2) {
    if (sum > CONFIGURABLE_BPS) return { question: `Your legs add to ${sum / 100}%, more than the 95% to split. How should it be split?` };
    const missing = (["asset", "perp", "creator"] as Leg[]).find((l) => bps[l] === undefined)!;
    bps[missing] = CONFIGURABLE_BPS - sum;
  } else {
    const [only] = legs as [Leg];
    if (sum > CONFIGURABLE_BPS) return { question: `The ${only} leg of ${sum / 100}% is more than the 95% to split. How should it be split?` };
    const others = (["asset", "perp", "creator"] as Leg[]).filter((l) => l !== only) as [Leg, Leg];
    const rest = CONFIGURABLE_BPS - sum;
    const weight = defaults[others[0]] + defaults[others[1]];
    bps[others[0]] = Math.floor((rest * defaults[others[0]]) / weight);
    bps[others[1]] = rest - bps[others[0]]!;
    return {
      split: { assetPct: pct(bps.asset!), perpPct: pct(bps.perp!), creatorPct: pct(bps.creator!) },
      question: `You set the ${only} leg to ${sum / 100}%; the other ${rest / 100}% was shared as ${others[0]} ${bps[others[0]]! / 100}% and ${others[1]} ${bps[others[1]]! / 100}%. Is that right?`,
    };
  }
  return { split: { assetPct: pct(bps.asset!), perpPct: pct(bps.perp!), creatorPct: pct(bps.creator!) } };
}

/** Compiles messages into a charter over `defaults`; every field has a value, the questions say which were assumed. */
export function compileCharter(messages: ChatMessage[], defaults: Charter): CompiledCharter {
  const s = mergeStatements(messages);
  const questions: string[] = [];
  const understood: string[] = [];
  const c: Charter = structuredClone(defaults);

  if (s.split?.default) understood.push("split");
  else if (s.split) {
    const { split, question } = completeSplit(s.split);
    if (split) {
      c.mandate.split = split;
      understood.push("split");
    }
    if (question) questions.push(question);
  } else {
    questions.push(
      "How should the 95% of LP fees outside the protocol's fixed 5% be split between the secondary asset, the perp desk and you? (default 28.5% / 57% / 9.5%)",
    );
  }

  if (s.market) {
    c.mandate.desk.market = s.market;
    understood.push("market");
  } else questions.push(`Which market should the desk trade: ETH/USD or BTC/USD? (default ${DEFAULT_LIMITS.market})`);

  if (s.leverage !== undefined) {
    if (s.leverage >= LEVERAGE_RANGE.min && s.leverage <= LEVERAGE_RANGE.max && hasTwoDecimals(s.leverage)) {
      c.mandate.desk.maxLeverage = s.leverage;
      understood.push("leverage");
    } else {
      questions.push(`Leverage of ${s.leverage}x cannot be used: the desk's cap is from ${LEVERAGE_RANGE.min}x to ${LEVERAGE_RANGE.max}x. What should it be?`);
    }
  } else questions.push(`What is the highest leverage the desk may use? (default ${DEFAULT_LIMITS.maxLeverage}x)`);

  if (s.drawdown !== undefined) {
    if (s.drawdown > 0 && s.drawdown <= 100 && hasTwoDecimals(s.drawdown)) {
      c.mandate.desk.maxDrawdownPct = s.drawdown;
      understood.push("drawdown");
    } else questions.push(`A drawdown of ${s.drawdown}% cannot be used: it must be above 0 and at most 100%. At what drawdown should the desk halt?`);
  } else questions.push(`At what drawdown should the desk halt? (default ${DEFAULT_LIMITS.maxDrawdownPct}%)`);

  if (s.takeProfit !== undefined) {
    if (s.takeProfit > 0 && s.takeProfit <= 1000 && hasTwoDecimals(s.takeProfit)) {
      c.mandate.desk.takeProfitPct = s.takeProfit;
      understood.push("takeProfit");
    } else questions.push(`A take-profit of ${s.takeProfit}% cannot be used: it must be above 0 and at most 1000%.`);
  }

  if (s.buybackMin !== undefined) {
    let amount: bigint | undefined;
    try {
      amount = parseDecimal(s.buybackMin, USDC_DECIMALS);
    } catch {
      amount = undefined;
    }
    if (amount !== undefined && amount >= BUYBACK_MIN_RANGE_USDC.min && amount <= BUYBACK_MIN_RANGE_USDC.max) {
      c.mandate.buybackMinUsdc = formatDecimal(amount, USDC_DECIMALS);
      understood.push("buybackMin");
    } else questions.push(`A buyback minimum of ${s.buybackMin} USDC cannot be used: it must be positive, at most 1000000, with at most 6 decimals.`);
  }

  if (s.strategy) {
    c.engine.strategy = s.strategy;
    understood.push("strategy");
  }

  if (s.name) {
    c.persona.name = s.name.slice(0, 48);
    understood.push("name");
  } else questions.push(`What is the agent's name? (default "${defaults.persona.name}")`);
  if (s.voice) {
    c.persona.voice = s.voice.slice(0, 280);
    understood.push("voice");
  }

  // The defaults and every accepted value are in range: this cannot fail, but never return an invalid charter.
  return { charter: charterSchema.parse(c), questions, understood };
}

/** The deterministic compiler, as a CharterCompiler. */
export const deterministicCompiler: CharterCompiler = {
  source: "compiler",
  compile: async (messages, defaults) => compileCharter(messages, defaults),
};

export { defaultCharter };
