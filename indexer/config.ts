/**
 * What the handlers need to know about the deployment (addresses of the operator, the
 * protocol token and the reference currencies), from the typed config, read once.
 */
import type { Address } from "viem";
import { loadConfigOrExit, requireContract } from "../common/config.js";

const config = loadConfigOrExit();

const lower = (a: Address) => a.toLowerCase() as Address;

export const indexerConfig = {
  operator: config.operator ? lower(config.operator) : undefined,
  protocolToken: config.protocolToken ? lower(config.protocolToken) : undefined,
  usdc: lower(requireContract(config, "usdc")),
  weth: lower(requireContract(config, "weth")),
  mevModule: lower(requireContract(config, "mevModule")),
  wethUsdcPool: config.contracts.v3WethUsdcPool ? lower(config.contracts.v3WethUsdcPool) : undefined,
  secondaryAsset: config.contracts.secondaryAsset ? lower(config.contracts.secondaryAsset) : undefined,
  secondaryAssetPool: config.contracts.secondaryAssetPool ? lower(config.contracts.secondaryAssetPool) : undefined,
} as const;

export const isOperator = (a: string | undefined | null) => !!a && a.toLowerCase() === indexerConfig.operator;
