// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC165} from "@openzeppelin/contracts/interfaces/IERC165.sol";
import {IERC5805} from "@openzeppelin/contracts/interfaces/IERC5805.sol";
import {IERC7802} from "@openzeppelin/contracts/interfaces/draft-IERC7802.sol";
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {ERC20Burnable} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Burnable.sol";
import {ERC20Votes} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Votes.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {Nonces} from "@openzeppelin/contracts/utils/Nonces.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";

/// @title ClankerToken
/// @notice Devnet mirror of the Clanker v4 token (clanker-devco/v4-contracts `src/ClankerToken.sol`): an ERC20 with
///         permit and burn, 18 decimals, the whole supply minted to the deploying factory on the originating chain,
///         and an `admin` key that may edit the image and metadata, hand the key over, and (original admin only)
///         mark the token verified. Constructor, views and events keep the production names and signatures.
///         Like production it is an ERC20Votes token (ERC-5805 delegation and checkpoints, block-number clock, as
///         OpenZeppelin's `ERC20Votes`, inherited here) and an ERC-7802 token whose `crosschainMint`/`crosschainBurn`
///         only the OP Stack SuperchainTokenBridge predeploy may call (`Unauthorized()` for anyone else).
/// @dev One EIP-712 domain `(name, "1", chainid, this)` serves permit (EIP-2612) and `delegateBySig`. OpenZeppelin
///      5.7's `EIP712` stores the name in a 31-byte immutable and rejects longer names, while production tokens
///      (built on the earlier `EIP712` with a storage fallback) accept any name; so the inherited `EIP712` gets a
///      fixed short name and every use of the domain (`_hashTypedDataV4`, `DOMAIN_SEPARATOR()`, `eip712Domain()`) is
///      overridden to hash the token's real name. Permit is written out for the same reason (OpenZeppelin's
///      `ERC20Permit.DOMAIN_SEPARATOR()` cannot be overridden); its typehash and errors are OpenZeppelin's.
///      The factory embeds this creation code and exceeds 24 KB; the devnet's anvil runs without the size limit.
contract ClankerToken is ERC20, ERC20Votes, ERC20Burnable, IERC20Permit, IERC7802 {
    /// @notice The OP Stack SuperchainTokenBridge predeploy, the only caller of the ERC-7802 functions.
    address public constant SUPERCHAIN_TOKEN_BRIDGE = 0x4200000000000000000000000000000000000028;

    bytes32 private constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant HASHED_VERSION = keccak256("1");
    bytes32 private immutable _hashedName;

    error ERC2612ExpiredSignature(uint256 deadline);
    error ERC2612InvalidSigner(address signer, address owner);
    error NotAdmin();
    error NotOriginalAdmin();
    error AlreadyVerified();
    /// @notice A crosschain mint or burn not sent by the SuperchainTokenBridge (production's `CommonErrors`).
    error Unauthorized();

    event UpdateAdmin(address indexed oldAdmin, address indexed newAdmin);
    event UpdateImage(string image);
    event UpdateMetadata(string metadata);
    event Verified(address indexed admin, address indexed token);

    address public immutable originalAdmin;
    address private _admin;
    string private _image;
    string private _metadata;
    string private _context;
    bool private _verified;

    constructor(
        string memory name_,
        string memory symbol_,
        uint256 maxSupply_,
        address admin_,
        string memory image_,
        string memory metadata_,
        string memory context_,
        uint256 initialSupplyChainId_
    ) ERC20(name_, symbol_) EIP712("ClankerToken", "1") {
        _hashedName = keccak256(bytes(name_));
        originalAdmin = admin_;
        _admin = admin_;
        _image = image_;
        _metadata = metadata_;
        _context = context_;
        // The supply exists on a single chain only; the factory receives it and hands it to the LP locker.
        if (block.chainid == initialSupplyChainId_) {
            _mint(msg.sender, maxSupply_);
        }
    }

    modifier onlyAdmin() {
        if (msg.sender != _admin) revert NotAdmin();
        _;
    }

    function updateAdmin(address admin_) external onlyAdmin {
        address oldAdmin = _admin;
        _admin = admin_;
        emit UpdateAdmin(oldAdmin, admin_);
    }

    function updateImage(string memory image_) external onlyAdmin {
        _image = image_;
        emit UpdateImage(image_);
    }

    function updateMetadata(string memory metadata_) external onlyAdmin {
        _metadata = metadata_;
        emit UpdateMetadata(metadata_);
    }

    function verify() external {
        if (msg.sender != originalAdmin) revert NotOriginalAdmin();
        if (_verified) revert AlreadyVerified();
        _verified = true;
        emit Verified(msg.sender, address(this));
    }

    // ---------------------------------------------------------------- permit (EIP-2612)

    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external
    {
        if (block.timestamp > deadline) revert ERC2612ExpiredSignature(deadline);
        bytes32 structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, _useNonce(owner), deadline));
        address signer = ECDSA.recover(MessageHashUtils.toTypedDataHash(DOMAIN_SEPARATOR(), structHash), v, r, s);
        if (signer != owner) revert ERC2612InvalidSigner(signer, owner);
        _approve(owner, spender, value);
    }

    function nonces(address owner) public view override(IERC20Permit, Nonces) returns (uint256) {
        return super.nonces(owner);
    }

    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, _hashedName, HASHED_VERSION, block.chainid, address(this)));
    }

    /// @dev The typed-data hash of permit and `delegateBySig`, over the domain with the token's full name.
    function _hashTypedDataV4(bytes32 structHash) internal view override returns (bytes32) {
        return MessageHashUtils.toTypedDataHash(DOMAIN_SEPARATOR(), structHash);
    }

    function eip712Domain()
        public
        view
        override
        returns (
            bytes1 fields,
            string memory name_,
            string memory version,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        )
    {
        return (hex"0f", name(), "1", block.chainid, address(this), bytes32(0), new uint256[](0));
    }

    // ---------------------------------------------------------------- votes (ERC-5805)

    function _update(address from, address to, uint256 value) internal override(ERC20, ERC20Votes) {
        super._update(from, to, value);
    }

    // ---------------------------------------------------------------- crosschain (ERC-7802)

    function crosschainMint(address to, uint256 amount) external {
        if (msg.sender != SUPERCHAIN_TOKEN_BRIDGE) revert Unauthorized();
        _mint(to, amount);
        emit CrosschainMint(to, amount, msg.sender);
    }

    function crosschainBurn(address from, uint256 amount) external {
        if (msg.sender != SUPERCHAIN_TOKEN_BRIDGE) revert Unauthorized();
        _burn(from, amount);
        emit CrosschainBurn(from, amount, msg.sender);
    }

    function supportsInterface(bytes4 interfaceId) public pure returns (bool) {
        return interfaceId == type(IERC7802).interfaceId || interfaceId == type(IERC20).interfaceId
            || interfaceId == type(IERC165).interfaceId || interfaceId == type(IERC5805).interfaceId;
    }

    // ---------------------------------------------------------------- admin

    function admin() external view returns (address) {
        return _admin;
    }

    function imageUrl() external view returns (string memory) {
        return _image;
    }

    function metadata() external view returns (string memory) {
        return _metadata;
    }

    function context() external view returns (string memory) {
        return _context;
    }

    function isVerified() external view returns (bool) {
        return _verified;
    }

    function allData()
        external
        view
        returns (address originalAdmin_, address admin_, string memory image, string memory metadata_, string memory context_)
    {
        return (originalAdmin, _admin, _image, _metadata, _context);
    }
}
