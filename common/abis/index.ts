export * from "./clanker.js";
export * from "./erc20.js";
export * from "./perps.js";
export * from "./registry.js";
export * from "./uniswap.js";
export * from "./clanker-hook.js";
