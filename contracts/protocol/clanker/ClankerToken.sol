// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Burnable} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Burnable.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";

/// @title ClankerToken
/// @notice Devnet mirror of the Clanker v4 token (clanker-devco/v4-contracts `src/ClankerToken.sol`): an ERC20 with
///         permit and burn, 18 decimals, the whole supply minted to the deploying factory on the originating chain,
///         and an `admin` key that may edit the image and metadata, hand the key over, and (original admin only)
///         mark the token verified. Constructor, views and events keep the production names and signatures.
/// @dev Simplifications: no ERC20Votes checkpoints and no ERC-7802 superchain mint/burn (neither is used by the
///      service); keeping them out also keeps the factory, which embeds this creation code, under 24 KB.
contract ClankerToken is ERC20, ERC20Permit, ERC20Burnable {
    error NotAdmin();
    error NotOriginalAdmin();
    error AlreadyVerified();

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
    ) ERC20(name_, symbol_) ERC20Permit(name_) {
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
