//! Walfield's per-method accounting: from the calls and summed times of each side, the table Walfield
//! printed — time on each side (ms), % of the time, calls, µs per call on each side, and the delta (client −
//! server per call), which the study read as the RPC's overhead. The report's `rpc` section prints the table
//! as the record holds it (`rpc.methods`'s `details.tables["methods"]`).

use overhead_clock::Ticks;
use overhead_grpc::service::{Method, Tally};
use overhead_record::LabelledTable;

pub use overhead_schema::experiments::rpc::TABLE_KEY;

pub use overhead_schema::experiments::rpc::COLUMNS;

/// One method's calls and total time on each side, ns.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct MethodTotals {
    /// Calls (the same on both sides: every call the stub timed, the server served once).
    pub calls: u64,
    /// The calls' time in the client's stub, summed (ns).
    pub client_ns: f64,
    /// Their time in the server, from receipt to reply, summed (ns).
    pub server_ns: f64,
}

impl MethodTotals {
    /// Client time per call (ns); `None` without calls.
    pub fn client_per_call_ns(&self) -> Option<f64> {
        (self.calls > 0).then(|| self.client_ns / self.calls as f64)
    }

    /// Server time per call (ns); `None` without calls.
    pub fn server_per_call_ns(&self) -> Option<f64> {
        (self.calls > 0).then(|| self.server_ns / self.calls as f64)
    }

    /// The delta per call, client − server (ns): the study's "RPC overhead"; `None` without calls.
    pub fn delta_per_call_ns(&self) -> Option<f64> {
        Some(self.client_per_call_ns()? - self.server_per_call_ns()?)
    }

    /// These totals and `other`'s together.
    fn plus(self, other: MethodTotals) -> MethodTotals {
        MethodTotals {
            calls: self.calls + other.calls,
            client_ns: self.client_ns + other.client_ns,
            server_ns: self.server_ns + other.server_ns,
        }
    }
}

/// Each method's totals from the two sides' tallies: the client's in ticks of `client_clock`, the server's in
/// ticks of `server_clock` (the same clock when both processes read one counter on one machine;
/// `CLOCK_MONOTONIC_RAW` for a server on another host).
///
/// Errors: a method's calls differ between the sides (a call was lost or counted twice).
pub fn totals(
    client_clock: &impl Ticks,
    server_clock: &impl Ticks,
    client: &[Tally; 4],
    server: &[Tally; 4],
) -> anyhow::Result<[MethodTotals; 4]> {
    for (m, (c, s)) in Method::ALL.iter().zip(client.iter().zip(server)) {
        anyhow::ensure!(
            c.calls == s.calls,
            "{}: the client made {} calls, the server served {}",
            m.label(),
            c.calls,
            s.calls
        );
    }
    Ok(std::array::from_fn(|i| MethodTotals {
        calls: client[i].calls,
        client_ns: client_clock.ticks_to_ns(client[i].ticks as f64),
        server_ns: server_clock.ticks_to_ns(server[i].ticks as f64),
    }))
}

/// All methods together.
pub fn overall(totals: &[MethodTotals; 4]) -> MethodTotals {
    totals.iter().fold(MethodTotals::default(), |a, &b| a.plus(b))
}

/// Walfield's table: one row per method in [`Method::ALL`] order, one cell per [`COLUMNS`] entry (`None`
/// where a method had no calls, or no client time to share).
pub fn methods_table(totals: &[MethodTotals; 4]) -> LabelledTable {
    let all_client_ns = overall(totals).client_ns;
    let pct = |ns: f64| (all_client_ns > 0.0).then(|| 100.0 * ns / all_client_ns);
    let us = |ns: Option<f64>| ns.map(|v| v / 1e3);
    let rows = Method::ALL
        .iter()
        .zip(totals)
        .map(|(m, t)| {
            let cells = vec![
                Some(t.calls as f64),
                Some(t.client_ns / 1e6),
                Some(t.server_ns / 1e6),
                pct(t.client_ns),
                pct(t.server_ns),
                us(t.client_per_call_ns()),
                us(t.server_per_call_ns()),
                us(t.delta_per_call_ns()),
            ];
            (m.label().to_string(), cells)
        })
        .collect();
    LabelledTable {
        title: "Walfield 2008 per-method accounting: client stub vs. server, receipt to reply".into(),
        unit: "per column: calls, ms, %, µs".into(),
        columns: COLUMNS.iter().map(|c| c.to_string()).collect(),
        rows,
    }
}

/// What an `rpc.methods` point reports beside its median (its `extra`): per method and over the study's mix,
/// ns per call on each side and the delta; a method without calls has none.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MethodsResult {
    /// Object discard: the client's time per call (the stub's, around the call).
    pub object_discard_client_ns: Option<f64>,
    /// Object discard: the server's time per call (from the decoded request to the reply).
    pub object_discard_server_ns: Option<f64>,
    /// Object discard: client − server per call: Walfield's delta.
    pub object_discard_delta_ns: Option<f64>,
    /// Object alloc: the client's time per call (the stub's, around the call).
    pub object_alloc_client_ns: Option<f64>,
    /// Object alloc: the server's time per call (from the decoded request to the reply).
    pub object_alloc_server_ns: Option<f64>,
    /// Object alloc: client − server per call: Walfield's delta.
    pub object_alloc_delta_ns: Option<f64>,
    /// Cap copy: the client's time per call (the stub's, around the call).
    pub cap_copy_client_ns: Option<f64>,
    /// Cap copy: the server's time per call (from the decoded request to the reply).
    pub cap_copy_server_ns: Option<f64>,
    /// Cap copy: client − server per call: Walfield's delta.
    pub cap_copy_delta_ns: Option<f64>,
    /// Folio alloc: the client's time per call (the stub's, around the call).
    pub folio_alloc_client_ns: Option<f64>,
    /// Folio alloc: the server's time per call (from the decoded request to the reply).
    pub folio_alloc_server_ns: Option<f64>,
    /// Folio alloc: client − server per call: Walfield's delta.
    pub folio_alloc_delta_ns: Option<f64>,
    /// Over the whole mix: the client's time per call (the stub's, around the call).
    pub mix_client_ns: Option<f64>,
    /// Over the whole mix: the server's time per call (from the decoded request to the reply).
    pub mix_server_ns: Option<f64>,
    /// Over the whole mix: client − server per call: Walfield's delta.
    pub mix_delta_ns: Option<f64>,
}

/// The per-call values of `totals` (per method, in [`Method::ALL`]'s order, and over the mix).
pub fn per_call(totals: &[MethodTotals; 4]) -> MethodsResult {
    let sides = |t: MethodTotals| [t.client_per_call_ns(), t.server_per_call_ns(), t.delta_per_call_ns()];
    let [[odc, ods, odd], [oac, oas, oad], [ccc, ccs, ccd], [fac, fas, fad]] = totals.map(sides);
    let [mc, ms, md] = sides(overall(totals));
    MethodsResult {
        object_discard_client_ns: odc,
        object_discard_server_ns: ods,
        object_discard_delta_ns: odd,
        object_alloc_client_ns: oac,
        object_alloc_server_ns: oas,
        object_alloc_delta_ns: oad,
        cap_copy_client_ns: ccc,
        cap_copy_server_ns: ccs,
        cap_copy_delta_ns: ccd,
        folio_alloc_client_ns: fac,
        folio_alloc_server_ns: fas,
        folio_alloc_delta_ns: fad,
        mix_client_ns: mc,
        mix_server_ns: ms,
        mix_delta_ns: md,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_harness::testing::ScriptedClock;

    /// Walfield's own numbers (ms and calls of its table) as the fixture: the table gives back its µs per
    /// call and deltas (26.3/22.1/4.2 for object discard), and the % columns share the client's total.
    #[test]
    fn the_seeds_table_comes_back_from_its_totals() {
        let row = |calls: u64, client_ms: f64, server_ms: f64| MethodTotals {
            calls,
            client_ns: client_ms * 1e6,
            server_ns: server_ms * 1e6,
        };
        let totals = [
            row(686_960, 18_054.0, 15_171.0),
            row(91_123, 730.0, 567.0),
            row(90_464, 868.0, 515.0),
            row(712, 30.0, 27.0),
        ];
        let table = methods_table(&totals);
        assert_eq!(table.columns, COLUMNS);
        let cell = |r: usize, c: &str| table.rows[r].1[COLUMNS.iter().position(|x| *x == c).unwrap()].unwrap();
        let near = |a: f64, b: f64| (a - b).abs() < 0.05;
        assert_eq!(table.rows[0].0, "object discard");
        assert_eq!(cell(0, "calls"), 686_960.0);
        assert_eq!(cell(0, "client_ms"), 18_054.0);
        assert!(near(cell(0, "client_us_per_call"), 26.28), "{}", cell(0, "client_us_per_call"));
        assert!(near(cell(0, "server_us_per_call"), 22.08));
        assert!(near(cell(0, "delta_us"), 4.2));
        assert!(near(cell(1, "delta_us"), 1.8) && near(cell(2, "delta_us"), 3.9));
        // The study printed 5.3 for folio alloc, from totals finer than its rounded 30 and 27 ms.
        assert!(near(cell(3, "delta_us"), 4.21));
        let all_client = 18_054.0 + 730.0 + 868.0 + 30.0;
        assert!((cell(0, "client_pct") - 100.0 * 18_054.0 / all_client).abs() < 1e-9);
        assert!((cell(0, "server_pct") - 100.0 * 15_171.0 / all_client).abs() < 1e-9);
        let pct_sum: f64 = (0..4).map(|r| cell(r, "client_pct")).sum();
        assert!((pct_sum - 100.0).abs() < 1e-9);
        let extras = overhead_record::result::to_extra(&per_call(&totals));
        assert!((extras["object_discard_delta_ns"] - 4200.0).abs() < 50.0);
        let mix = overall(&totals);
        assert_eq!(mix.calls, 686_960 + 91_123 + 90_464 + 712);
        assert!((extras["mix_delta_ns"] - mix.delta_per_call_ns().unwrap()).abs() < 1e-9);
    }

    /// Ticks become ns with the clock's rate; a method without calls has empty per-call cells; calls that
    /// differ between the sides are an error.
    #[test]
    fn ticks_to_totals_and_empty_methods() {
        let clock = ScriptedClock::new(2e9);
        let t = |calls, ticks| Tally { calls, ticks };
        let client = [t(4, 8000), t(0, 0), t(1, 100), t(2, 50)];
        let server = [t(4, 6000), t(0, 0), t(1, 40), t(2, 10)];
        let totals = totals(&clock, &clock, &client, &server).unwrap();
        assert_eq!(totals[0], MethodTotals { calls: 4, client_ns: 4000.0, server_ns: 3000.0 });
        assert_eq!(totals[0].delta_per_call_ns(), Some(250.0));
        let table = methods_table(&totals);
        assert_eq!(table.rows[1].1[5..], [None, None, None]);
        assert_eq!(per_call(&totals).object_alloc_client_ns, None);
        let mut lost = server;
        lost[2].calls = 0;
        let err = super::totals(&clock, &clock, &client, &lost).unwrap_err().to_string();
        assert!(err.contains("cap copy"), "{err}");
    }
}
