// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {IUnlockCallback} from "@uniswap/v4-core/src/interfaces/callback/IUnlockCallback.sol";
import {TickMath} from "@uniswap/v4-core/src/libraries/TickMath.sol";
import {BalanceDelta} from "@uniswap/v4-core/src/types/BalanceDelta.sol";
import {Currency} from "@uniswap/v4-core/src/types/Currency.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {SwapParams} from "@uniswap/v4-core/src/types/PoolOperation.sol";

interface IBenchERC20 {
    function balanceOf(address account) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
}

/// @notice Benchmark histories only: many swaps, burns and fee collections from one transaction of
/// its owner, so a generated history emits many events per signed transaction.
///
/// `act` makes its swaps directly against the PoolManager, all inside one `unlock`: each is one
/// `PoolManager.swap` call (one `Swap` event), and the deltas of every currency are settled once
/// at the end (one transfer in or out per currency), instead of a router, Permit2 and two
/// transfers per swap. That keeps the call traces anvil stores with every transaction, and the
/// gas, to a fraction. Sells never spend more than the batcher holds, so the unlock does not
/// revert; the other calls (burns, collections) each fail on their own and are skipped. The
/// history counts the events the chain actually holds.
contract BenchBatcher is IUnlockCallback {
    address public immutable owner;
    IPoolManager public immutable poolManager;
    /// @notice Pools a swap names by index (a swap is one word: calldata, and the traces that copy it, stay small).
    PoolKey[] public pools;

    constructor(IPoolManager manager) {
        owner = msg.sender;
        poolManager = manager;
    }

    /// @notice Makes every call of `targets`/`data` in order; a call that fails is skipped.
    function run(address[] calldata targets, bytes[] calldata data) external {
        require(msg.sender == owner, "only owner");
        _calls(targets, data);
    }

    function addPools(PoolKey[] calldata keys) external {
        require(msg.sender == owner, "only owner");
        for (uint256 i = 0; i < keys.length; i++) {
            pools.push(keys[i]);
        }
    }

    /// @notice The swaps (one unlock), then the calls. A swap is `pool index << 129 | zeroForOne << 128 | amountIn`.
    function act(uint256[] calldata swaps, address[] calldata targets, bytes[] calldata data) external {
        require(msg.sender == owner, "only owner");
        if (swaps.length > 0) {
            (bool ok,) = address(poolManager).call(abi.encodeCall(IPoolManager.unlock, (abi.encode(swaps))));
            ok;
        }
        _calls(targets, data);
    }

    function unlockCallback(bytes calldata raw) external returns (bytes memory) {
        require(msg.sender == address(poolManager), "only pool manager");
        uint256[] memory swaps = abi.decode(raw, (uint256[]));
        address[] memory currencies = new address[](swaps.length * 2);
        int256[] memory held = new int256[](swaps.length * 2);
        int256[] memory deltas = new int256[](swaps.length * 2);
        uint256 n;
        for (uint256 i = 0; i < swaps.length; i++) {
            PoolKey memory key = pools[swaps[i] >> 129];
            bool zeroForOne = (swaps[i] >> 128) & 1 == 1;
            address c0 = Currency.unwrap(key.currency0);
            address c1 = Currency.unwrap(key.currency1);
            uint256 a;
            uint256 b;
            (a, n) = _slot(currencies, held, n, c0);
            (b, n) = _slot(currencies, held, n, c1);
            uint256 input = zeroForOne ? a : b;
            int256 available = held[input] + deltas[input];
            uint256 amountIn = uint128(swaps[i]);
            if (available <= 0) continue;
            if (int256(amountIn) > available) amountIn = uint256(available);
            BalanceDelta delta = poolManager.swap(
                key,
                SwapParams({
                    zeroForOne: zeroForOne,
                    amountSpecified: -int256(amountIn),
                    sqrtPriceLimitX96: zeroForOne ? TickMath.MIN_SQRT_PRICE + 1 : TickMath.MAX_SQRT_PRICE - 1
                }),
                ""
            );
            deltas[a] += delta.amount0();
            deltas[b] += delta.amount1();
        }
        for (uint256 j = 0; j < n; j++) {
            int256 d = deltas[j];
            if (d < 0) {
                poolManager.sync(Currency.wrap(currencies[j]));
                IBenchERC20(currencies[j]).transfer(address(poolManager), uint256(-d));
                poolManager.settle();
            } else if (d > 0) {
                poolManager.take(Currency.wrap(currencies[j]), address(this), uint256(d));
            }
        }
        return "";
    }

    /// @dev The index of `currency` in the first `n` entries, added (with its balance) if new.
    function _slot(address[] memory currencies, int256[] memory held, uint256 n, address currency)
        private
        view
        returns (uint256, uint256)
    {
        for (uint256 j = 0; j < n; j++) {
            if (currencies[j] == currency) return (j, n);
        }
        currencies[n] = currency;
        held[n] = int256(IBenchERC20(currency).balanceOf(address(this)));
        return (n, n + 1);
    }

    function _calls(address[] calldata targets, bytes[] calldata data) private {
        for (uint256 i = 0; i < targets.length; i++) {
            (bool ok,) = targets[i].call(data[i]);
            ok;
        }
    }
}
