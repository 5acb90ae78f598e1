/**
 * Onchain facts, as ponder tables. `npm start` puts them in a schema named after the
 * indexer code's hash, with stable views in the `launchpad` schema. Every row is derived
 * from events by the handlers in indexer/; aggregates are maintained as events arrive.
 * Money columns are bigint base units of the currency named beside them.
 */
import { index, onchainTable, primaryKey } from "ponder";

/** A token launched through the launcher (`TokenCreated`). */
export const token = onchainTable(
  "token",
  (t) => ({
    address: t.hex().primaryKey(),
    name: t.text().notNull(),
    symbol: t.text().notNull(),
    image: t.text().notNull(),
    metadata: t.text().notNull(),
    context: t.text().notNull(),
    admin: t.hex().notNull(),
    deployer: t.hex().notNull(),
    poolId: t.hex().notNull(),
    pairedToken: t.hex().notNull(),
    locker: t.hex().notNull(),
    startingTick: t.integer().notNull(),
    isProtocolToken: t.boolean().notNull(),
    launchTx: t.hex().notNull(),
    createdBlock: t.bigint().notNull(),
    createdAt: t.bigint().notNull(),
  }),
  // newestIdx: a page of tokens, newest launch first (`/tokens`, GraphQL `tokens`), read from the
  // index with the page's limit instead of sorting every token.
  (table) => ({ poolIdx: index().on(table.poolId), createdIdx: index().on(table.createdAt), newestIdx: index().on(table.createdBlock, table.address) }),
);

/**
 * LP-locker reward slots per token (index → recipient, admin, bps, fee preference), kept current
 * by `RewardRecipientUpdated`, `RewardAdminUpdated`, `InitialFeePreferences` and
 * `FeePreferenceUpdated`.
 */
export const rewardRecipient = onchainTable(
  "reward_recipient",
  (t) => ({
    token: t.hex().notNull(),
    rewardIndex: t.integer().notNull(),
    recipient: t.hex().notNull(),
    admin: t.hex().notNull(),
    bps: t.integer().notNull(),
    /** `FeeIn` (0 Both, 1 Paired, 2 Clanker): the currency the locker pays this slot in. */
    feeIn: t.integer().notNull(),
    /** Block of the last preference or admin change (null: as launched). */
    updatedBlock: t.bigint(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.token, table.rewardIndex] }), recipientIdx: index().on(table.recipient) }),
);

/** One row per (collection, reward slot, currency): the per-token attribution the fee locker cannot give. */
export const feeCollection = onchainTable(
  "fee_collection",
  (t) => ({
    id: t.text().primaryKey(), // `${txHash}-${logIndex}-${rewardIndex}-${currencySide}`
    token: t.hex().notNull(),
    rewardIndex: t.integer().notNull(),
    recipient: t.hex().notNull(),
    currency: t.hex().notNull(),
    amount: t.bigint().notNull(),
    txHash: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({ tokenIdx: index().on(table.token, table.timestamp), recipientIdx: index().on(table.recipient, table.currency) }),
);

/**
 * LP fees per (token, currency), from the locker's `ClaimedRewards`: what the operator's and
 * the creator's reward slots collected, how much of the operator's the operator's
 * `ClaimTokens` has claimed since (`unclaimed` is the rest), and what became USDC — USDC when
 * claimed; WETH when the operator's conversion swap sells it, at that swap's realised rate
 * (`awaitingConversion` is claimed WETH not sold yet, `converted` the WETH sold, `usdc` what
 * the swaps paid for it). Base units of `currency` (`usdc`: USDC).
 */
export const tokenFee = onchainTable(
  "token_fee",
  (t) => ({
    token: t.hex().notNull(),
    currency: t.hex().notNull(),
    toOperator: t.bigint().notNull(),
    unclaimed: t.bigint().notNull(),
    awaitingConversion: t.bigint().notNull(),
    converted: t.bigint().notNull(),
    usdc: t.bigint().notNull(),
    toCreator: t.bigint().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.token, table.currency] }) }),
);

/** `token_fee` summed over every token, per currency (one row each). */
export const feeCurrencyTotals = onchainTable("fee_currency_totals", (t) => ({
  currency: t.hex().primaryKey(),
  toOperator: t.bigint().notNull(),
  unclaimed: t.bigint().notNull(),
  awaitingConversion: t.bigint().notNull(),
  converted: t.bigint().notNull(),
  usdc: t.bigint().notNull(),
  toCreator: t.bigint().notNull(),
}));

/**
 * The operator's swaps of fee WETH into USDC (a v3 WETH/USDC swap it sent with itself as the
 * recipient), one row per swap: what it sold, what it got, and how much of the sale the WETH
 * awaiting conversion explained (`attributed`, the part divided among tokens).
 */
export const feeConversion = onchainTable("fee_conversion", (t) => ({
  id: t.text().primaryKey(), // `${txHash}-${logIndex}`
  currency: t.hex().notNull(),
  amountIn: t.bigint().notNull(),
  usdcOut: t.bigint().notNull(),
  attributed: t.bigint().notNull(),
  txHash: t.hex().notNull(),
  blockNumber: t.bigint().notNull(),
  timestamp: t.bigint().notNull(),
}));

/**
 * Indexer bookkeeping, not read by the API: named queues of tokens, read by key instead of by
 * a query (`unclaimed:<currency>`: the operator's collected fees not claimed yet, one entry per
 * collection with its amount, settled by the next claim; `unconverted:<currency>`: tokens with
 * claimed WETH awaiting conversion). `head` is the oldest entry still to read, `tail` the next
 * free one.
 */
export const tokenQueue = onchainTable("token_queue", (t) => ({
  name: t.text().primaryKey(),
  head: t.integer().notNull(),
  tail: t.integer().notNull(),
}));

export const tokenQueueEntry = onchainTable(
  "token_queue_entry",
  (t) => ({ name: t.text().notNull(), seq: t.integer().notNull(), token: t.hex().notNull(), amount: t.bigint() }),
  (table) => ({ pk: primaryKey({ columns: [table.name, table.seq] }) }),
);

/** Fee-locker balances per (owner, currency): stored, claimed, still claimable. */
export const feeBalance = onchainTable(
  "fee_balance",
  (t) => ({
    owner: t.hex().notNull(),
    currency: t.hex().notNull(),
    stored: t.bigint().notNull(),
    claimed: t.bigint().notNull(),
    claimable: t.bigint().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.owner, table.currency] }) }),
);

/** Fee-locker claims (`ClaimTokens`). */
export const feeClaim = onchainTable(
  "fee_claim",
  (t) => ({
    id: t.text().primaryKey(),
    owner: t.hex().notNull(),
    currency: t.hex().notNull(),
    amount: t.bigint().notNull(),
    txHash: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({ ownerIdx: index().on(table.owner, table.timestamp) }),
);

/** Registry enrolment: the current split and flags per token. */
export const enrollment = onchainTable("enrollment", (t) => ({
  token: t.hex().primaryKey(),
  creator: t.hex().notNull(),
  protocolBps: t.integer().notNull(),
  assetBps: t.integer().notNull(),
  perpBps: t.integer().notNull(),
  creatorBps: t.integer().notNull(),
  charterHash: t.hex().notNull(),
  active: t.boolean().notNull(),
  halted: t.boolean().notNull(),
  enrolledBlock: t.bigint().notNull(),
  enrolledAt: t.bigint().notNull(),
  updatedAt: t.bigint().notNull(),
}));

/** Every registry change, in order. */
export const enrollmentEvent = onchainTable(
  "enrollment_event",
  (t) => ({
    id: t.text().primaryKey(),
    token: t.hex().notNull(),
    kind: t.text().notNull(), // enrolled | active | inactive | halted | unhalted
    txHash: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({ tokenIdx: index().on(table.token, table.blockNumber) }),
);

/**
 * Transactions whose receipt was read for our pools' swaps (indexer/pools.ts): a swap moves our
 * token more than once (the trade, the hook's fee collection), and the receipt is read once.
 */
export const swapTx = onchainTable("swap_tx", (t) => ({
  txHash: t.hex().primaryKey(),
}));

/** State and volume of each of our tokens' pools's pool. */
export const pool = onchainTable(
  "pool",
  (t) => ({
    poolId: t.hex().primaryKey(),
    token: t.hex().notNull(),
    pairedToken: t.hex().notNull(),
    currency0: t.hex().notNull(),
    currency1: t.hex().notNull(),
    fee: t.integer().notNull(),
    tickSpacing: t.integer().notNull(),
    hooks: t.hex().notNull(),
    sqrtPriceX96: t.bigint().notNull(),
    tick: t.integer().notNull(),
    liquidity: t.bigint().notNull(),
    /**
     * Price of one whole token, scaled by 1e18 to keep memecoin prices exact: paired-currency
     * base units per 1e18 whole tokens (format with the paired decimals + 18).
     */
    pricePairedE18: t.bigint().notNull(),
    /** USDC base units per 1e18 whole tokens (via the WETH/USDC pool for WETH-paired tokens). */
    priceUsdcE18: t.bigint().notNull(),
    volumeToken: t.bigint().notNull(),
    volumePaired: t.bigint().notNull(),
    swaps: t.integer().notNull(),
    /** The Clanker hook's LP fees by direction, in pips (its `PoolInitialized`; null: a hook without it). */
    clankerFee: t.integer(),
    pairedFee: t.integer(),
    /** The hook's protocol fee taken off this pool's swaps, paired-currency base units (the claims it mints itself in each swap). */
    protocolFees: t.bigint().notNull(),
    updatedAt: t.bigint().notNull(),
  }),
  (table) => ({ tokenIdx: index().on(table.token) }),
);

/**
 * Sniper auction rounds won (`AuctionWon` of the MEV module), one per transaction: the launch
 * whose auction block was won, the round, and what the winner paid, in WETH base units. 80% of it
 * reaches the token's reward recipients through the fee locker (`StoreTokens` in the same
 * transaction, with no `ClaimedRewards`), 20% the factory.
 */
export const auction = onchainTable("auction", (t) => ({
  txHash: t.hex().primaryKey(),
  poolId: t.hex().notNull(),
  token: t.hex().notNull(),
  payee: t.hex().notNull(),
  /** The winning bid, WETH base units. */
  amount: t.bigint().notNull(),
  /** The auction round it won (1 to 5). */
  round: t.integer(),
  blockNumber: t.bigint().notNull(),
  timestamp: t.bigint().notNull(),
}));

/**
 * Each launch's sniper auction as its MEV module runs it: `AuctionInitialized` (round 1's
 * block, `auctionBlock`), `AuctionReset` (each won round opens the next: `round` and its block,
 * `lastAuctionBlock`, move on),
 * `AuctionExpired` (a round nobody won ends the rounds) or `AuctionEnded` (the last round won),
 * and `FeeConfigSet`: the sniper fee decays from `startingFee` to `endingFee` (Uniswap pips: 1% =
 * 10,000) over `secondsToDecay`, from the last auction (the launch, then each round won), until
 * `decayEndsAt` (unix seconds). `decayStartsAt` is set once the rounds are over; `poolExtension`
 * is the hook's `PoolExtensionRegistered` (0: none).
 */
export const auctionConfig = onchainTable("auction_config", (t) => ({
  poolId: t.hex().primaryKey(),
  startingFee: t.integer().notNull(),
  endingFee: t.integer().notNull(),
  secondsToDecay: t.bigint().notNull(),
  decayEndsAt: t.bigint().notNull(),
  auctionBlock: t.bigint(),
  round: t.integer(),
  lastAuctionBlock: t.bigint(),
  roundsWon: t.integer(),
  /** The transactions of the rounds won (their receipts hold the recipients' `StoreTokens`). */
  wonTxs: t.hex().array(),
  decayStartsAt: t.bigint(),
  poolExtension: t.hex(),
}));

/** Reference prices from v3 pools the service trades in (WETH/USDC; the secondary asset). */
export const referencePrice = onchainTable("reference_price", (t) => ({
  pool: t.hex().primaryKey(),
  sqrtPriceX96: t.bigint().notNull(),
  updatedAt: t.bigint().notNull(),
}));

/**
 * The operator's v3 swaps, by transaction: USDC paid in (`usdcIn` for `amountOut`: the USDC leg
 * of a two-hop buyback, an asset purchase) or the other token sold for USDC (`otherIn` for
 * `usdcOut`: a WETH fee conversion, the WETH leg of a legacy-WETH buyback).
 */
export const operatorV3Swap = onchainTable("operator_v3_swap", (t) => ({
  id: t.text().primaryKey(), // `${txHash}-${pool}`
  txHash: t.hex().notNull(),
  pool: t.hex().notNull(),
  usdcIn: t.bigint().notNull(),
  amountOut: t.bigint().notNull(),
  otherIn: t.bigint().notNull(),
  usdcOut: t.bigint().notNull(),
}));

/** One row per operator swap into a launched token: a protocol or creator buyback. */
export const buyback = onchainTable(
  "buyback",
  (t) => ({
    id: t.text().primaryKey(), // `${txHash}-${logIndex}` of the v4 Swap
    token: t.hex().notNull(),
    kind: t.text().notNull(), // protocol-buyback | creator-buyback
    /** USDC the buyback spent: paid in, or what the WETH it spent was sold for in the same transaction (0 when no USDC was involved). */
    usdcIn: t.bigint().notNull(),
    pairedIn: t.bigint().notNull(),
    /** What the operator paid in: USDC, or WETH (a legacy-WETH buyback), and how much (base units of `currencyIn`). */
    currencyIn: t.hex().notNull(),
    amountIn: t.bigint().notNull(),
    tokensBought: t.bigint().notNull(),
    tokensBurned: t.bigint().notNull(),
    txHash: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({
    tokenTimeIdx: index().on(table.token, table.blockNumber, table.logIndex),
    kindTimeIdx: index().on(table.kind, table.blockNumber, table.logIndex),
  }),
);

/** Buyback spending per (token, currency paid in): count, amount (base units of `currency`) and its USDC. */
export const tokenBuybackSpend = onchainTable(
  "token_buyback_spend",
  (t) => ({
    token: t.hex().notNull(),
    currency: t.hex().notNull(),
    buybacks: t.integer().notNull(),
    amountIn: t.bigint().notNull(),
    usdcIn: t.bigint().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.token, table.currency] }) }),
);

/** Buyback spending per (kind, currency paid in), over every token. */
export const buybackSpend = onchainTable(
  "buyback_spend",
  (t) => ({
    kind: t.text().notNull(), // protocol-buyback | creator-buyback
    currency: t.hex().notNull(),
    buybacks: t.integer().notNull(),
    amountIn: t.bigint().notNull(),
    usdcIn: t.bigint().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.kind, table.currency] }) }),
);

/**
 * Indexer bookkeeping, not read by the API: per token, a queue of the buybacks not yet fully
 * burned, oldest first (`head` is the oldest open entry, `tail` the next free one), so an
 * operator burn settles them by key instead of by a query. Entries before `head` are settled.
 */
export const buybackQueue = onchainTable("buyback_queue", (t) => ({
  token: t.hex().primaryKey(),
  head: t.integer().notNull(),
  tail: t.integer().notNull(),
}));

export const buybackQueueEntry = onchainTable(
  "buyback_queue_entry",
  (t) => ({ token: t.hex().notNull(), seq: t.integer().notNull(), buybackId: t.text().notNull() }),
  (table) => ({ pk: primaryKey({ columns: [table.token, table.seq] }) }),
);

/** One row per transfer of a launched token to the dead address. */
export const burn = onchainTable(
  "burn",
  (t) => ({
    id: t.text().primaryKey(), // `${txHash}-${logIndex}`
    token: t.hex().notNull(),
    from: t.hex().notNull(),
    amount: t.bigint().notNull(),
    kind: t.text().notNull(), // protocol-buyback | creator-buyback | organic
    txHash: t.hex().notNull(),
    txFrom: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({
    tokenOrderIdx: index().on(table.token, table.blockNumber, table.logIndex),
    kindOrderIdx: index().on(table.kind, table.blockNumber, table.logIndex),
    orderIdx: index().on(table.blockNumber, table.logIndex),
    timeIdx: index().on(table.timestamp),
  }),
);

/** Daily burn buckets per token (UTC day start, seconds); weeks and months are sums of days. */
export const burnDaily = onchainTable(
  "burn_daily",
  (t) => ({
    token: t.hex().notNull(),
    day: t.bigint().notNull(),
    burned: t.bigint().notNull(),
    burns: t.integer().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.token, table.day] }), dayIdx: index().on(table.day) }),
);

/** The operator's perps trades ("desk trades"), one row per opened position. */
export const deskTrade = onchainTable(
  "desk_trade",
  (t) => ({
    id: t.text().primaryKey(), // `${pairIndex}-${index}-${openOrderId}`
    openOrderId: t.bigint().notNull(),
    pairIndex: t.bigint().notNull(),
    tradeIndex: t.bigint().notNull(),
    buy: t.boolean().notNull(),
    collateral: t.bigint().notNull(), // USDC, current
    leverage: t.bigint().notNull(), // 1e10
    openPrice: t.bigint().notNull(), // 1e10
    status: t.text().notNull(), // open | closed | liquidated
    realisedPnl: t.bigint().notNull(), // USDC, signed
    usdcReturned: t.bigint().notNull(),
    openedAt: t.bigint().notNull(),
    closedAt: t.bigint(),
    openTx: t.hex().notNull(),
  }),
  (table) => ({ statusIdx: index().on(table.status), slotIdx: index().on(table.pairIndex, table.tradeIndex) }),
);
/** A row of `desk_trade`, as the indexer writes it and the API reads it. */
export type DeskTradeRow = typeof deskTrade.$inferSelect;

/** The operator's pending perps orders (two-step market orders) and which trade a slot holds now. */
export const deskOrder = onchainTable("desk_order", (t) => ({
  orderId: t.bigint().primaryKey(),
  pairIndex: t.bigint().notNull(),
  open: t.boolean().notNull(),
  buy: t.boolean().notNull(),
  collateral: t.bigint().notNull(),
  leverage: t.bigint().notNull(),
  status: t.text().notNull(), // pending | executed | canceled
  /** USDC the exchange sent back when it canceled the order (gTrade: an open's collateral less its fee, all of it after a timeout). */
  usdcReturned: t.bigint(),
  txHash: t.hex().notNull(),
  timestamp: t.bigint().notNull(),
}));

export const deskSlot = onchainTable(
  "desk_slot",
  (t) => ({ pairIndex: t.bigint().notNull(), tradeIndex: t.bigint().notNull(), tradeId: t.text().notNull() }),
  (table) => ({ pk: primaryKey({ columns: [table.pairIndex, table.tradeIndex] }) }),
);

/** Desk events: opened, increased, closed, liquidated — with realised PnL. */
export const deskEvent = onchainTable(
  "desk_event",
  (t) => ({
    id: t.text().primaryKey(),
    tradeId: t.text().notNull(),
    kind: t.text().notNull(), // desk-opened | desk-increased | desk-closed | desk-liquidated
    collateralDelta: t.bigint().notNull(),
    price: t.bigint().notNull(),
    realisedPnl: t.bigint().notNull(),
    usdcReturned: t.bigint().notNull(),
    txHash: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({ tradeIdx: index().on(table.tradeId) }),
);

/** The activity feed: one row per event of every kind, so `GET /activity` is one indexed query. */
export const activity = onchainTable(
  "activity",
  (t) => ({
    id: t.text().primaryKey(), // `${blockNumber padded}-${logIndex padded}-${n}`: sorts in chain order
    kind: t.text().notNull(),
    token: t.hex(),
    txHash: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    timestamp: t.bigint().notNull(),
    data: t.json().notNull(),
  }),
  (table) => ({ kindIdx: index().on(table.kind, table.id), tokenIdx: index().on(table.token, table.id) }),
);

/** Protocol-wide totals, one row (`id = "protocol"`), maintained by the handlers. */
export const protocolTotals = onchainTable("protocol_totals", (t) => ({
  id: t.text().primaryKey(),
  tokensLaunched: t.integer().notNull(),
  tokensEnrolled: t.integer().notNull(),
  /**
   * Every fee of the operator's reward slots in USDC — USDC when the operator claims it, WETH at
   * its conversion swap's realised rate — = the sum of the protocol, asset, perp and operator
   * legs, as per token (`token_totals`); here also the USDC a claim brought beyond the
   * collections, which belongs to no token (operator leg). The legs are the ledger's
   * allocations, fact by fact, with the same maths.
   */
  feesToOperatorUsdc: t.bigint().notNull(),
  protocolLegUsdc: t.bigint().notNull(),
  assetLegUsdc: t.bigint().notNull(),
  perpLegUsdc: t.bigint().notNull(),
  /** USDC the creator's reward slots collected. */
  creatorLegUsdc: t.bigint().notNull(),
  /** The operator's claimed fees of tokens it does not split (the protocol token, tokens not enrolled, USDC claimed beyond the collections), USDC: the ledger's operator leg. */
  operatorLegUsdc: t.bigint().notNull(),
  /** USDC the protocol token's own pool paid the operator (part of the operator leg). */
  protocolTokenFeesUsdc: t.bigint().notNull(),
  feesClaimedUsdc: t.bigint().notNull(),
  protocolBuybacks: t.integer().notNull(),
  protocolBuybackUsdc: t.bigint().notNull(),
  protocolTokensBought: t.bigint().notNull(),
  protocolTokensBurned: t.bigint().notNull(),
  creatorBuybacks: t.integer().notNull(),
  creatorBuybackUsdc: t.bigint().notNull(),
  assetPurchaseUsdc: t.bigint().notNull(),
  desksOpened: t.integer().notNull(),
  desksOpen: t.integer().notNull(),
  deskRealisedPnl: t.bigint().notNull(),
  updatedAt: t.bigint().notNull(),
}));

/**
 * Per-token totals. `feesToOperatorUsdc` is every fee of the token's operator slots in USDC
 * (USDC when claimed, WETH at its conversion's realised rate) = the sum of its four legs.
 */
export const tokenTotals = onchainTable("token_totals", (t) => ({
  token: t.hex().primaryKey(),
  feesToOperatorUsdc: t.bigint().notNull(),
  protocolLegUsdc: t.bigint().notNull(),
  assetLegUsdc: t.bigint().notNull(),
  perpLegUsdc: t.bigint().notNull(),
  operatorLegUsdc: t.bigint().notNull(),
  creatorLegUsdc: t.bigint().notNull(),
  buybacks: t.integer().notNull(),
  buybackUsdc: t.bigint().notNull(),
  tokensBought: t.bigint().notNull(),
  burned: t.bigint().notNull(),
  burns: t.integer().notNull(),
  buybackBurned: t.bigint().notNull(),
  updatedAt: t.bigint().notNull(),
}));

/**
 * Each total's change per block (`protocol_totals` under scope "protocol", `token_totals` under
 * the token's lower-case address): the API subtracts the changes of blocks not final yet (above
 * the indexed head less CONFIRMATIONS) to serve each total as a final and a pending part.
 */
export const totalsDelta = onchainTable(
  "totals_delta",
  (t) => ({
    id: t.text().primaryKey(), // `${scope}-${blockNumber}-${field}`
    scope: t.text().notNull(),
    blockNumber: t.bigint().notNull(),
    field: t.text().notNull(),
    delta: t.bigint().notNull(),
  }),
  (table) => ({ scopeBlockIdx: index().on(table.scope, table.blockNumber) }),
);

/**
 * Price candles of each launched token's pool, by hour and by UTC day, maintained by the swap
 * handler (one row per pool, period and bucket). Prices are the pool's own: paired-currency base
 * units per 1e18 whole tokens (as `pool.pricePairedE18`; format with the paired decimals + 18).
 * `open` is the pool's price when the bucket's first swap arrived (the price at the bucket's
 * start), `close` its price after the bucket's last swap; `high` and `low` include both.
 */
export const poolCandle = onchainTable(
  "pool_candle",
  (t) => ({
    poolId: t.hex().notNull(),
    /** `hour` | `day` */
    period: t.text().notNull(),
    /** Bucket start, unix seconds (UTC). */
    start: t.bigint().notNull(),
    token: t.hex().notNull(),
    pairedToken: t.hex().notNull(),
    open: t.bigint().notNull(),
    high: t.bigint().notNull(),
    low: t.bigint().notNull(),
    close: t.bigint().notNull(),
    /** Tokens traded, token base units (18 decimals). */
    volumeToken: t.bigint().notNull(),
    /** Paired currency traded, base units of `pairedToken`. */
    volumePaired: t.bigint().notNull(),
    /** USDC base units (6 decimals) of the bucket's priced swaps: USDC legs as they are, WETH legs at the WETH/USDC price of their swap. */
    volumeUsdc: t.bigint().notNull(),
    /** Swaps whose paired leg had no USDC price (no WETH/USDC price indexed yet): left out of `volumeUsdc`. */
    unpricedSwaps: t.integer().notNull(),
    swaps: t.integer().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.poolId, table.period, table.start] }) }),
);

/** Per pool, the traded volume in USDC since launch (the same definition as `pool_candle.volumeUsdc`). */
export const poolVolumeUsdc = onchainTable("pool_volume_usdc", (t) => ({
  poolId: t.hex().primaryKey(),
  /** USDC base units (6 decimals). */
  volumeUsdc: t.bigint().notNull(),
  unpricedSwaps: t.integer().notNull(),
}));

/**
 * The pool's price after each swap, so a fact (a burn) can be valued at the price of its
 * moment: the last swap at or before it in chain order.
 */
export const poolPricePoint = onchainTable(
  "pool_price_point",
  (t) => ({
    poolId: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    /** Paired-currency base units per 1e18 whole tokens. */
    pricePairedE18: t.bigint().notNull(),
    /** USDC base units per 1e18 whole tokens (null: no USDC price for the paired currency then). */
    priceUsdcE18: t.bigint(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.poolId, table.blockNumber, table.logIndex] }) }),
);
