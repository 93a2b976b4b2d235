//! `kind = "bulk-download"` / `"bulk-upload"`: one TCP transfer of `bytes` between `client`
//! and `server`.

use super::tcp::{ReaderConfig, TcpSettings};
use crate::scenario::check::Check;
use crate::scenario::units::Size;
use serde::Deserialize;

/// A bulk TCP transfer's own keys (`bulk-upload` takes all but `request`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BulkFlow {
    /// Node that downloads or uploads.
    pub client: String,
    /// Node that serves the transfer.
    pub server: String,
    /// Bytes to transfer.
    pub bytes: Size,
    /// Request size (bulk-download only; default 100 B).
    #[serde(default)]
    pub request: Option<Size>,
    /// TCP settings.
    #[serde(default)]
    pub tcp: Option<TcpSettings>,
    /// How the receiving application reads.
    #[serde(default)]
    pub reader: Option<ReaderConfig>,
    /// Cross traffic: the run does not wait for it to complete.
    #[serde(default)]
    pub background: Option<bool>,
}

impl BulkFlow {
    /// Checks every number against its valid range; `key` is the flow's path (`flow[0]`).
    pub(crate) fn check_ranges(&self, key: &str, c: &mut Check) {
        c.num(&format!("{key}.request"), self.request.map(Size::bytes), 1, 1_000_000_000, " B");
        if let Some(t) = &self.tcp {
            t.check_ranges(&format!("{key}.tcp"), c);
        }
        if let Some(r) = &self.reader {
            r.check_ranges(&format!("{key}.reader"), c);
        }
    }
}
