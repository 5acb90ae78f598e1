// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title ProtocolRegistry
/// @notice This project's own registry (deployed alike on the devnet and on Base): the operator enrols launcher
///         tokens with their fee split and charter hash, and can mark them active/inactive and halted/unhalted.
///         Every change is an event, so the indexer can rebuild the registry from logs alone.
/// @dev Splits are in basis points of the fees a token earns for the service. The protocol leg is fixed at
///      `PROTOCOL_BPS` (5%); the asset, perp and creator legs must add up to the remaining 9500.
contract ProtocolRegistry {
    uint16 public constant PROTOCOL_BPS = 500;
    uint16 public constant TOTAL_BPS = 10_000;
    /// @notice What `assetBps + perpBps + creatorBps` must equal.
    uint16 public constant SPLIT_BPS = TOTAL_BPS - PROTOCOL_BPS;

    struct Enrollment {
        address creator;
        uint16 assetBps;
        uint16 perpBps;
        uint16 creatorBps;
        bool active;
        bool halted;
        uint64 enrolledAt;
        bytes32 charterHash;
    }

    address public operator;
    mapping(address token => Enrollment) internal _enrollments;
    address[] internal _tokens;

    event TokenEnrolled(
        address indexed token,
        address indexed creator,
        uint16 protocolBps,
        uint16 assetBps,
        uint16 perpBps,
        uint16 creatorBps,
        bytes32 charterHash
    );
    event TokenActiveSet(address indexed token, bool active);
    event TokenHaltedSet(address indexed token, bool halted);
    event OperatorChanged(address indexed previous, address indexed next);

    error NotOperator();
    error ZeroAddress();
    error AlreadyEnrolled(address token);
    error NotEnrolled(address token);
    error InvalidSplit(uint16 assetBps, uint16 perpBps, uint16 creatorBps);
    error IndexOutOfRange(uint256 index, uint256 count);

    constructor(address operator_) {
        if (operator_ == address(0)) revert ZeroAddress();
        operator = operator_;
        emit OperatorChanged(address(0), operator_);
    }

    modifier onlyOperator() {
        if (msg.sender != operator) revert NotOperator();
        _;
    }

    /// @notice Enrol `token` (active, not halted) with its split and the hash of its charter.
    function enroll(
        address token,
        address creator,
        uint16 assetBps,
        uint16 perpBps,
        uint16 creatorBps,
        bytes32 charterHash
    ) external onlyOperator {
        if (token == address(0) || creator == address(0)) revert ZeroAddress();
        if (_enrollments[token].enrolledAt != 0) revert AlreadyEnrolled(token);
        if (uint256(assetBps) + perpBps + creatorBps != SPLIT_BPS) revert InvalidSplit(assetBps, perpBps, creatorBps);
        _enrollments[token] = Enrollment({
            creator: creator,
            assetBps: assetBps,
            perpBps: perpBps,
            creatorBps: creatorBps,
            active: true,
            halted: false,
            enrolledAt: uint64(block.timestamp),
            charterHash: charterHash
        });
        _tokens.push(token);
        emit TokenEnrolled(token, creator, PROTOCOL_BPS, assetBps, perpBps, creatorBps, charterHash);
    }

    function setActive(address token, bool active) external onlyOperator {
        _enrolled(token).active = active;
        emit TokenActiveSet(token, active);
    }

    function setHalted(address token, bool halted) external onlyOperator {
        _enrolled(token).halted = halted;
        emit TokenHaltedSet(token, halted);
    }

    function setOperator(address next) external onlyOperator {
        if (next == address(0)) revert ZeroAddress();
        address previous = operator;
        operator = next;
        emit OperatorChanged(previous, next);
    }

    function enrollment(address token)
        external
        view
        returns (
            address creator,
            uint16 protocolBps,
            uint16 assetBps,
            uint16 perpBps,
            uint16 creatorBps,
            bytes32 charterHash,
            bool active,
            bool halted,
            uint256 enrolledAt
        )
    {
        Enrollment storage e = _enrolled(token);
        return (e.creator, PROTOCOL_BPS, e.assetBps, e.perpBps, e.creatorBps, e.charterHash, e.active, e.halted, e.enrolledAt);
    }

    function isEnrolled(address token) external view returns (bool) {
        return _enrollments[token].enrolledAt != 0;
    }

    function enrolledCount() external view returns (uint256) {
        return _tokens.length;
    }

    /// @notice The `i`-th enrolled token, in enrolment order.
    function enrolledAt(uint256 i) external view returns (address) {
        if (i >= _tokens.length) revert IndexOutOfRange(i, _tokens.length);
        return _tokens[i];
    }

    function _enrolled(address token) internal view returns (Enrollment storage e) {
        e = _enrollments[token];
        if (e.enrolledAt == 0) revert NotEnrolled(token);
    }
}
