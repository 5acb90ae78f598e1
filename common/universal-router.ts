/**
 * Pure encoders for UniversalRouter `execute(commands, inputs, deadline)` plans: a v3
 * exact-input hop and a v4 exact-input single-pool swap (V4Router actions), the same
 * encoding the Clanker locker and Uniswap's SDK produce.
 */
import { type Address, type Hex, concatHex, encodeAbiParameters, encodePacked, toHex } from "viem";
import { POOL_KEY_ABI, type PoolKey } from "./uniswap.js";

export const Commands = { V3_SWAP_EXACT_IN: 0x00, SWEEP: 0x04, V4_SWAP: 0x10 } as const;
export const Actions = {
  SWAP_EXACT_IN_SINGLE: 0x06,
  SETTLE: 0x0b,
  SETTLE_ALL: 0x0c,
  TAKE: 0x0e,
  TAKE_ALL: 0x0f,
} as const;

/** UniversalRouter's sentinel for "the router's own balance" (ActionConstants.CONTRACT_BALANCE). */
export const CONTRACT_BALANCE = 2n ** 255n;
/** UniversalRouter's sentinel recipient for "the router itself" (ActionConstants.ADDRESS_THIS). */
export const ADDRESS_THIS = "0x0000000000000000000000000000000000000002" as const;
/** ActionConstants.OPEN_DELTA: settle/take the whole open delta. */
export const OPEN_DELTA = 0n;

export type RouterStep = { command: number; input: Hex };

/** V3_SWAP_EXACT_IN: pays `amountIn` of the first token of `path` from the sender (via Permit2) or the router. */
export function v3ExactIn(params: {
  recipient: Address;
  amountIn: bigint;
  amountOutMin: bigint;
  path: { tokens: Address[]; fees: number[] };
  payerIsUser: boolean;
}): RouterStep {
  const types: ("address" | "uint24")[] = [];
  const values: (Address | number)[] = [];
  params.path.tokens.forEach((token, i) => {
    types.push("address");
    values.push(token);
    if (i < params.path.fees.length) {
      types.push("uint24");
      values.push(params.path.fees[i]!);
    }
  });
  const path = encodePacked(types, values);
  return {
    command: Commands.V3_SWAP_EXACT_IN,
    input: encodeAbiParameters(
      [{ type: "address" }, { type: "uint256" }, { type: "uint256" }, { type: "bytes" }, { type: "bool" }],
      [params.recipient, params.amountIn, params.amountOutMin, path, params.payerIsUser],
    ),
  };
}

const EXACT_INPUT_SINGLE_ABI = [
  {
    type: "tuple",
    components: [
      { ...POOL_KEY_ABI, name: "poolKey" },
      { name: "zeroForOne", type: "bool" },
      { name: "amountIn", type: "uint128" },
      { name: "amountOutMinimum", type: "uint128" },
      { name: "hookData", type: "bytes" },
    ],
  },
] as const;

/** V4Router ExactInputSingleParams (the 5-field struct of the deployed routers). */
function exactInputSingle(poolKey: PoolKey, zeroForOne: boolean, amountIn: bigint, amountOutMinimum: bigint, hookData: Hex = "0x"): Hex {
  return encodeAbiParameters(EXACT_INPUT_SINGLE_ABI, [{ poolKey, zeroForOne, amountIn, amountOutMinimum, hookData }]);
}

/**
 * V4_SWAP with SWAP_EXACT_IN_SINGLE, then settle the input and take the output.
 * `payerIsUser=false` settles from the router's own balance (the second hop of a route).
 */
export function v4ExactInSingle(params: {
  poolKey: PoolKey;
  zeroForOne: boolean;
  amountIn: bigint;
  amountOutMin: bigint;
  payerIsUser: boolean;
  /** Passed to the pool's hook (a sniper-auction bid, for instance); empty by default. */
  hookData?: Hex;
}): RouterStep {
  const currencyIn = params.zeroForOne ? params.poolKey.currency0 : params.poolKey.currency1;
  const currencyOut = params.zeroForOne ? params.poolKey.currency1 : params.poolKey.currency0;
  const take = encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [currencyOut, params.amountOutMin]);
  let actions: Hex;
  let actionParams: Hex[];
  if (params.payerIsUser) {
    actions = encodePacked(["uint8", "uint8", "uint8"], [Actions.SWAP_EXACT_IN_SINGLE, Actions.SETTLE_ALL, Actions.TAKE_ALL]);
    actionParams = [
      exactInputSingle(params.poolKey, params.zeroForOne, params.amountIn, params.amountOutMin, params.hookData),
      encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [currencyIn, params.amountIn]),
      take,
    ];
  } else {
    // Pay the input from the router's balance (SETTLE with payerIsUser=false), then swap
    // the whole credit that created (amountIn OPEN_DELTA) and take everything out.
    actions = encodePacked(["uint8", "uint8", "uint8"], [Actions.SETTLE, Actions.SWAP_EXACT_IN_SINGLE, Actions.TAKE_ALL]);
    actionParams = [
      encodeAbiParameters([{ type: "address" }, { type: "uint256" }, { type: "bool" }], [currencyIn, CONTRACT_BALANCE, false]),
      exactInputSingle(params.poolKey, params.zeroForOne, OPEN_DELTA, params.amountOutMin, params.hookData),
      take,
    ];
  }
  return {
    command: Commands.V4_SWAP,
    input: encodeAbiParameters([{ type: "bytes" }, { type: "bytes[]" }], [actions, actionParams]),
  };
}

/** Joins steps into `execute` arguments. */
export function routerPlan(steps: RouterStep[]): { commands: Hex; inputs: Hex[] } {
  return {
    commands: steps.length ? concatHex(steps.map((s) => toHex(s.command, { size: 1 }))) : "0x",
    inputs: steps.map((s) => s.input),
  };
}

export const UNIVERSAL_ROUTER_ABI = [
  {
    type: "function",
    name: "execute",
    stateMutability: "payable",
    inputs: [
      { name: "commands", type: "bytes" },
      { name: "inputs", type: "bytes[]" },
      { name: "deadline", type: "uint256" },
    ],
    outputs: [],
  },
] as const;
