//! The two-host scenario of the datagram flow tests (`udp_rr.rs`, `echo.rs`).

/// Two hosts over one 100 Mb/s link, 10 ms each way, the forward direction losing `loss`.
pub fn scenario(loss: f64, flow: &str) -> String {
    format!(
        r#"
[simulation]
duration = "60s"
[[node]]
name = "c"
kind = "host"
[[node]]
name = "s"
kind = "host"
[[link]]
a = "c"
b = "s"
rate = "100Mbps"
delay = "10ms"
a_to_b = {{ loss = {{ model = "bernoulli", p = {loss} }} }}
{flow}
"#
    )
}
