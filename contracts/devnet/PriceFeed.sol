// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Chainlink AggregatorV3-style feed whose answer the devnet can set: the owner (the deployer) or an
///         updater the owner names (the devnet keeper, so the market simulator never signs with the operator).
contract PriceFeed {
    address public immutable owner;
    uint8 public immutable decimals;
    string public description;
    uint256 public constant version = 4;
    /// @notice Account allowed to set answers besides the owner (address(0): none).
    address public updater;

    uint80 private _roundId;
    int256 private _answer;
    uint256 private _updatedAt;

    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);
    event UpdaterSet(address indexed updater);

    constructor(uint8 decimals_, string memory description_, int256 initialAnswer) {
        owner = msg.sender;
        decimals = decimals_;
        description = description_;
        _set(initialAnswer);
    }

    function setUpdater(address updater_) external {
        require(msg.sender == owner, "only owner");
        updater = updater_;
        emit UpdaterSet(updater_);
    }

    function setAnswer(int256 answer) external {
        require(msg.sender == owner || (msg.sender == updater && updater != address(0)), "only owner or updater");
        _set(answer);
    }

    function latestAnswer() external view returns (int256) {
        return _answer;
    }

    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        return (_roundId, _answer, _updatedAt, _updatedAt, _roundId);
    }

    function _set(int256 answer) private {
        require(answer > 0, "non-positive answer");
        _roundId += 1;
        _answer = answer;
        _updatedAt = block.timestamp;
        emit AnswerUpdated(answer, _roundId, block.timestamp);
    }
}
