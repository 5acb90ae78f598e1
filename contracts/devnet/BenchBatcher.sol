// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Benchmark histories only: runs many calls (swaps, burns, fee collections) from one
/// transaction of its owner, so a generated history emits many events per signed transaction.
/// A call that fails is skipped; the history counts the events the chain actually holds.
contract BenchBatcher {
    address public immutable owner;

    constructor() {
        owner = msg.sender;
    }

    function run(address[] calldata targets, bytes[] calldata data) external {
        require(msg.sender == owner, "only owner");
        for (uint256 i = 0; i < targets.length; i++) {
            (bool ok,) = targets[i].call(data[i]);
            ok;
        }
    }
}
