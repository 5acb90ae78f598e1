/**
 * Custom errors the engine may meet when it simulates or sends (Uniswap routers and Permit2,
 * OpenZeppelin ERC20, the Clanker lockers and V2 hooks (a launch's fees out of range), the
 * registry, gTrade's diamond), so a revert is recorded by name.
 * `Error(string)` (Avantis `require` messages) and `Panic(uint256)` are decoded by viem itself.
 */
import { parseAbi } from "viem";
import { gainsErrorsAbi } from "./gains.js";

export const knownErrorsAbi = [
  ...parseAbi([
    "error ExecutionFailed(uint256 commandIndex, bytes message)",
    "error TransactionDeadlinePassed()",
    "error V3TooLittleReceived()",
    "error V3TooMuchRequested()",
    "error V3InvalidSwap()",
    "error V4TooLittleReceived(uint256 minAmountOutReceived, uint256 amountReceived)",
    "error V4TooMuchRequested(uint256 maxAmountInRequested, uint256 amountRequested)",
    "error DeltaNotNegative(address currency)",
    "error DeltaNotPositive(address currency)",
    "error CurrencyNotSettled()",
    "error InsufficientBalance()",
    "error InsufficientToken()",
    "error InsufficientETH()",
    "error AllowanceExpired(uint256 deadline)",
    "error InsufficientAllowance(uint256 amount)",
    "error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)",
    "error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)",
    "error ERC20InvalidReceiver(address receiver)",
    "error SafeERC20FailedOperation(address token)",
    "error ERC4626ExceededMaxDeposit(address receiver, uint256 assets, uint256 max)",
    "error NoFeesToClaim()",
    "error TokenNotFound()",
    "error Unauthorized()",
    "error NotOperator()",
    "error NotEnrolled(address token)",
    "error AlreadyEnrolled(address token)",
    "error InvalidSplit(uint16 assetBps, uint16 perpBps, uint16 creatorBps)",
    "error PriceLimitAlreadyExceeded(uint160 sqrtPriceCurrentX96, uint160 sqrtPriceLimitX96)",
    "error PoolNotInitialized()",
    "error HookNotEnabled()",
    "error MevModuleNotEnabled()",
    "error LockerNotEnabled()",
    "error NotAuctionBlock()",
    "error ClankerFeeTooHigh()",
    "error PairedFeeTooHigh()",
    "error BaseFeeTooLow()",
    "error MaxLpFeeTooHigh()",
    "error BaseFeeGreaterThanMaxLpFee()",
    "error WrappedError(address target, bytes4 selector, bytes reason, bytes details)",
  ]),
  ...gainsErrorsAbi,
];
