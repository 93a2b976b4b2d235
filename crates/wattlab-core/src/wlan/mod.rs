//! 802.11 WLAN models shared by the simulator and the trace analyzer: PHY timing, and the
//! closed-form models the simulated MAC is checked against.
//!
//! - [`phy`]: inter-frame spaces, contention windows and frame airtimes per PHY;
//! - [`propagation`]: positions, log-distance path loss, shadowing, noise floor, SNR;
//! - [`error_model`]: SNR → frame error rate per modulation and coding (NIST model);
//! - [`bianchi`]: Bianchi's saturation throughput of `n` contending stations (basic access);
//! - [`capacity`]: the collision-free maximum throughput of one flow over one DCF link;
//! - [`aggregation`]: both with A-MPDU aggregation, immediate Block Ack and EDCA;
//! - [`amsdu`]: A-MSDU layout and its limits per PHY format.

pub mod aggregation;
pub mod amsdu;
pub mod bianchi;
pub mod capacity;
pub mod error_model;
pub mod phy;
pub mod propagation;

pub use phy::{find_phy, phy_names, Band, Mcs, PhyFormat, PhyProfile, PpduShape, TxVector};
