/**
 * Standard interfaces the engine reads or calls beyond the protocol ABIs: Permit2's
 * allowance, the v4 PoolManager's `extsload` (StateView without a StateView), a v3 pool's
 * state, ERC-4626 and Chainlink-style price feeds.
 */
import { parseAbi } from "viem";

export const permit2AllowanceAbi = parseAbi([
  "function approve(address token, address spender, uint160 amount, uint48 expiration)",
  "function allowance(address user, address token, address spender) view returns (uint160 amount, uint48 expiration, uint48 nonce)",
]);

export const extsloadAbi = parseAbi([
  "function extsload(bytes32 slot) view returns (bytes32)",
  "function extsload(bytes32 startSlot, uint256 nSlots) view returns (bytes32[])",
]);

/** The PoolManager's `extsload` of a list of slots: many pools' words in one call. */
export const extsloadSlotsAbi = parseAbi(["function extsload(bytes32[] slots) view returns (bytes32[])"]);

export const v3PoolStateAbi = parseAbi([
  "function slot0() view returns (uint160 sqrtPriceX96, int24 tick, uint16 observationIndex, uint16 observationCardinality, uint16 observationCardinalityNext, uint8 feeProtocol, bool unlocked)",
  "function liquidity() view returns (uint128)",
  "function token0() view returns (address)",
  "function token1() view returns (address)",
  "function fee() view returns (uint24)",
]);

export const erc4626Abi = parseAbi([
  "function deposit(uint256 assets, address receiver) returns (uint256 shares)",
  "function asset() view returns (address)",
  "function balanceOf(address owner) view returns (uint256)",
  "function convertToAssets(uint256 shares) view returns (uint256)",
  "event Deposit(address indexed sender, address indexed owner, uint256 assets, uint256 shares)",
]);

export const aggregatorV3Abi = parseAbi([
  "function decimals() view returns (uint8)",
  "function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)",
]);
