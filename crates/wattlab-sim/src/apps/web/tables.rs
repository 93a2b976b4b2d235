//! The web flows' own result tables: one row per page view, one per object.

use super::Web;
use serde::Serialize;
use wattlab_core::Time;

/// Page views of every web flow, by column (one row per page view started).
#[derive(Clone, Debug, Default, Serialize)]
pub struct PageTable {
    /// Flow index (as in `RunOutput::flow_names`).
    pub flow: Vec<u32>,
    /// Page view index within the flow (0-based).
    pub page: Vec<u32>,
    /// Site: the server node's name.
    pub site: Vec<String>,
    /// Sub-page of the site (listed pages: position in `page_list`).
    pub subpage: Vec<u32>,
    /// First view of this page (a re-visit shows the same objects).
    pub first_visit: Vec<bool>,
    /// When the browser sent (or queued) the HTML request (s).
    pub start_s: Vec<f64>,
    /// When the last object was complete (s; NaN if the run stopped first).
    pub end_s: Vec<f64>,
    /// Think time drawn for after this page (s).
    pub think_s: Vec<f64>,
    /// Objects, the main HTML included.
    pub objects: Vec<u32>,
    /// Body bytes of all objects (response headers excluded).
    pub bytes: Vec<u64>,
    /// Connections opened while this page loaded.
    pub new_connections: Vec<u32>,
    /// Distinct servers the page's objects come from (1 unless `third_party` is set).
    pub servers: Vec<u32>,
}

/// Objects of every page view started, by column.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ObjectTable {
    /// Flow index.
    pub flow: Vec<u32>,
    /// Page view index within the flow.
    pub page: Vec<u32>,
    /// Object within the page: 0 = the main HTML, then the embedded objects.
    pub object: Vec<u32>,
    /// Site: the page's site (origin) node's name.
    pub site: Vec<String>,
    /// The node that served this object: the site, or a third-party server.
    pub server: Vec<String>,
    /// Client-side connection that carried it (simulation index; None if never requested).
    pub connection: Vec<Option<u32>>,
    /// Body bytes.
    pub size: Vec<u64>,
    /// Response bytes: body + header.
    pub response_bytes: Vec<u64>,
    /// When the client sent the request (s; NaN if never).
    pub request_s: Vec<f64>,
    /// When the first response byte reached the client application (s; NaN if never).
    pub first_byte_s: Vec<f64>,
    /// When the whole response had been read (s; NaN if never).
    pub done_s: Vec<f64>,
    /// The connection had carried an earlier request.
    pub reused: Vec<bool>,
    /// Client connections of the flow with a request outstanding when this one was sent,
    /// this one included (1 = alone).
    pub concurrency: Vec<u32>,
}

use crate::series::PYTHON_CELL_BYTES;

/// Bytes a page view costs, for the cost estimate: its row while running, its row of
/// [`PageTable`] (the site's name a `String` with its heap block) and the Python copy.
pub const PAGE_ROW_BYTES: f64 = (std::mem::size_of::<super::PageRow>() + 7 * 4 + 1 + 4 * 8 + 24 + 32 + 12 * PYTHON_CELL_BYTES) as f64;
/// Bytes an object costs: its row while running, its row of [`ObjectTable`] and the Python copy.
pub const OBJECT_ROW_BYTES: f64 =
    (std::mem::size_of::<super::ObjectRow>() + 5 * 4 + 8 + 1 + 5 * 8 + 2 * (24 + 32) + 13 * PYTHON_CELL_BYTES) as f64;

fn secs(t: Option<Time>) -> f64 {
    t.map(|t| t.as_secs_f64()).unwrap_or(f64::NAN)
}

/// Appends the pages and objects of flow `flow` (a web flow) to the tables; `node_name` names
/// the sites' nodes.
pub fn append(flow: u32, w: &Web, node_name: &dyn Fn(u32) -> String, p: &mut PageTable, o: &mut ObjectTable) {
    let site_name = |s: u32| node_name(w.server_nodes[s as usize]);
    for r in &w.pages {
        p.flow.push(flow);
        p.page.push(r.view);
        p.site.push(site_name(r.site));
        p.subpage.push(r.subpage);
        p.first_visit.push(r.first_visit);
        p.start_s.push(r.start.as_secs_f64());
        p.end_s.push(secs(r.end));
        p.think_s.push(r.think.as_secs_f64());
        p.objects.push(r.objects);
        p.bytes.push(r.bytes);
        p.new_connections.push(r.new_connections);
        p.servers.push(r.servers);
    }
    for r in &w.objects {
        o.flow.push(flow);
        o.page.push(r.page);
        o.object.push(r.index);
        o.site.push(site_name(r.site));
        o.server.push(site_name(r.server));
        o.connection.push(r.conn);
        o.size.push(r.size);
        o.response_bytes.push(r.response);
        o.request_s.push(secs(r.request_at));
        o.first_byte_s.push(secs(r.first_byte_at));
        o.done_s.push(secs(r.done_at));
        o.reused.push(r.reused);
        o.concurrency.push(r.concurrency);
    }
}
