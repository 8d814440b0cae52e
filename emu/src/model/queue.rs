// SPDX-License-Identifier: GPL-2.0-or-later
//! Resources that serve one request at a time (a tile's MPB port, a
//! tile's register block, a directed mesh link) or one line at a time (a
//! memory controller's DDR3 channel), with queueing that does not depend
//! on the order in which cores reach them on the host.
//!
//! A controller's service is not its latency: its banks and bus have
//! several requests in flight and pass a line every few cycles
//! ([`super::dram`]), so a request waits for the lines ahead of it to pass
//! the channel's narrowest stage, and the formulas below take that
//! interval as its service. The other resources' service is their whole
//! occupancy.
//!
//! # The calendar
//!
//! Each resource keeps a calendar: modelled time cut into buckets of a few
//! services ([`chip`]'s timing table gives the services; the bucket sizes
//! are the resource's, see `latency::Resource::bucket`). A bucket holds a
//! [`Load`]: how many requests arrived in it, and from how many cores. A
//! request adds itself to the bucket of its arrival time ([`add`]); a core
//! that takes back requests it booked ahead (the polls of a wait that
//! ended sooner) subtracts them. Both are sums, so once every core is past
//! a bucket its contents are the same whatever the host did: that is what
//! makes contended results deterministic.
//!
//! # The wait
//!
//! A request's wait is computed once its bucket and the [`HISTORY`]
//! buckets before it are final (see `crate::timing`), from their loads
//! alone ([`wait`]):
//!
//! 1. **Backlog.** The work left over when the request's bucket begins:
//!    Lindley's recursion over the buckets before, each bringing its
//!    requests' services and serving a bucket's worth of cycles.
//! 2. **Within the bucket.** The requests of the other cores in the same
//!    bucket arrive at moments the bucket does not record; they are taken
//!    as random (Poisson) arrivals, whose mean wait for a server of
//!    constant service time `s` at load ρ is Pollaczek-Khinchine's
//!    ρ·s / (2·(1 − ρ)) (Kleinrock, *Queueing Systems* vol. 1, §5.7), and at
//!    most half their work (the mean over the places the request can take
//!    among them).
//! 3. **At most one request per other core.** The P54C has one access
//!    outstanding and stalls until it completes, so no more than one request
//!    of each other core can be ahead of a request: the wait (and the
//!    backlog) is at most one service per other core that reached the
//!    resource in the window. A core never queues behind itself.
//!
//! Stated assumptions: the Poisson arrivals of step 2 and the window of
//! [`HISTORY`] buckets (a backlog older than that is forgotten). The
//! wait is charged to the core when the buckets are final, not at the
//! access: see `crate::timing` for when that is.
//!
//! # Reading a bucket back
//!
//! The calendar is a ring of [`SLOTS`] buckets: a request to bucket `k`
//! reuses the slot of bucket `k − SLOTS` ([`add`]), and a core that reads
//! a bucket back after another core reused its slot finds it empty
//! ([`load`]). Whether a slot was reused when it is read must not depend
//! on how far the host ran the other cores meanwhile. Two rules see to
//! it, both judged in modelled time:
//!
//! - A core reads back only buckets that ended less than [`FRESH`] buckets
//!   before its clock ([`readable`]); a request in an older one waits
//!   nothing. The slots read are then intact as long as no other core is
//!   more than [`LEAD`] buckets ahead of the reader: a quarter of the ring,
//!   where cores running together stay within a quantum and a half of
//!   each other (a stated bound of the model; far more than a quantum
//!   apart, results may follow the host). A running core charges its
//!   requests far sooner (at its ordered accesses, and every 65,536
//!   cycles of timed accesses, `crate::timing`): the rule reaches those of
//!   a core that paused, or made no timed access, for most of a ring.
//! - A core that stops for a while (a wait in modelled time, a halt) does
//!   not pace the others, which may run a ring ahead before it resumes. So
//!   it reads its pending requests' loads before it stops, once they are
//!   final, holding the others within a quantum meanwhile, and keeps the
//!   waits with the requests until they are charged (`crate::timing`'s
//!   hold, `crate::engine`'s capture): charged as before, at the same
//!   modelled moment, from the same loads.
//!
//! A link counts packets, not flits: the other cores' packets in a bucket
//! are taken to be as long as the request's own (a stated assumption: the
//! calendar word has no room for their lengths). Its service is one or two
//! cycles, so [`wait`] is given its service and bucket in parts of a cycle
//! (`latency::LINK_WAIT_SCALE`; every step scales with them) and the core
//! sums the parts before it charges whole cycles.

/// Buckets before a request's own whose loads make its backlog.
pub const HISTORY: usize = 16;

/// Buckets in a calendar (a power of two): a ring, reused bucket after
/// bucket. A core reads a bucket back for up to [`FRESH`] buckets after
/// it ends, and other cores may be up to [`LEAD`] buckets ahead of it
/// meanwhile ([`readable`]).
pub const SLOTS: u64 = 1 << 15;

/// Buckets other cores may be ahead of a core that reads a bucket back: a
/// quarter of the ring (262,144 cycles at a link, an MPB or a register
/// block, over a million at a controller), where cores running together
/// stay within a quantum and a half of each other (150,000 cycles at the
/// default quantum; a stated bound, see the module's docs).
pub const LEAD: u64 = SLOTS / 4;

/// Buckets after its end within which a bucket is read back
/// ([`readable`]): the rest of the ring, less the [`HISTORY`] read with it
/// and the other cores' [`LEAD`].
pub const FRESH: u64 = SLOTS - LEAD - HISTORY as u64 - 1;

/// Whether bucket `k` of a calendar of buckets of `bucket` cycles is read
/// back by a core whose clock is at `now`: it ended less than [`FRESH`]
/// buckets before. Its slot and those of the [`HISTORY`] before it are
/// then still theirs as long as no other core has booked a request more
/// than [`LEAD`] buckets after `now`. An older bucket's slot may have been
/// reused, or not, by the time the core reads it, as the host ran the
/// other cores; a request in it is charged no wait, in every run alike.
pub fn readable(k: u64, bucket: u64, now: u64) -> bool {
    (k + 1 + FRESH).saturating_mul(bucket) > now
}

/// Bits of a calendar word holding the requests of its bucket.
const REQUEST_BITS: u32 = 20;
/// Bits holding the cores that reached it, above the requests.
const CORE_BITS: u32 = 8;
/// The bucket's number sits above both.
const BUCKET_SHIFT: u32 = REQUEST_BITS + CORE_BITS;
const REQUESTS: u64 = (1 << REQUEST_BITS) - 1;
const CORES: u64 = (1 << CORE_BITS) - 1;

/// What one bucket of a calendar holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Load {
    /// Requests that arrived in it.
    pub requests: u64,
    /// Cores those requests came from.
    pub cores: u64,
}

/// The words of one resource's calendar: atomic in the run's clocks file,
/// plain cells in tests.
pub trait Calendar {
    /// Atomically replaces word `i` by `f` of it while `f` returns a value;
    /// `Ok` with the word replaced, or `Err` with the word `f` refused.
    fn update(&self, i: u64, f: &mut dyn FnMut(u64) -> Option<u64>) -> Result<u64, u64>;

    /// Word `i`.
    fn load(&self, i: u64) -> u64;
}

/// The bucket number a word holds, as far as its bits keep it.
fn bucket_of(word: u64) -> u64 {
    word >> BUCKET_SHIFT
}

/// `k` as far as a word keeps it.
fn stored(k: u64) -> u64 {
    k & (u64::MAX >> BUCKET_SHIFT)
}

/// Adds `requests` requests from `cores` more cores (negative: takes them
/// back) to bucket `k` of `calendar`. A slot holding an older bucket is
/// reused; one holding a later bucket means `k` is a whole calendar in the
/// past, and nothing is recorded.
pub fn add(calendar: &impl Calendar, k: u64, requests: i64, cores: i64) {
    let _ = calendar.update(k % SLOTS, &mut |word| {
        let load = match bucket_of(word).cmp(&stored(k)) {
            std::cmp::Ordering::Equal => word & !(u64::MAX << BUCKET_SHIFT),
            std::cmp::Ordering::Less => 0,
            std::cmp::Ordering::Greater => return None,
        };
        let r = (load & REQUESTS)
            .saturating_add_signed(requests)
            .min(REQUESTS);
        let c = (load >> REQUEST_BITS & CORES)
            .saturating_add_signed(cores)
            .min(CORES);
        Some(stored(k) << BUCKET_SHIFT | c << REQUEST_BITS | r)
    });
}

/// The load of bucket `k` of `calendar` (none if the slot holds another
/// bucket).
pub fn load(calendar: &impl Calendar, k: u64) -> Load {
    let word = calendar.load(k % SLOTS);
    if bucket_of(word) != stored(k) {
        return Load::default();
    }
    Load {
        requests: word & REQUESTS,
        cores: word >> REQUEST_BITS & CORES,
    }
}

/// The wait of a request in the last bucket of `loads` (which holds the
/// [`HISTORY`] buckets before it first), served in `service` cycles by a
/// resource of buckets of `bucket` cycles; `own` of the last bucket's
/// requests are its core's (it does not queue behind them). See the
/// module's docs for the three steps.
pub fn wait(loads: &[Load], own: u64, service: u64, bucket: u64) -> u64 {
    let Some((last, before)) = loads.split_last() else {
        return 0;
    };
    let others = loads
        .iter()
        .map(|l| l.cores)
        .max()
        .unwrap_or(0)
        .saturating_sub(1);
    if others == 0 {
        return 0; // Step 3: alone in the window.
    }
    let cap = others * service;
    // No bucket brought more work than it serves: nothing was left over.
    let busiest = before.iter().map(|l| l.requests).max().unwrap_or(0);
    let backlog = if busiest * service <= bucket {
        0
    } else {
        before.iter().fold(0u64, |backlog, l| {
            (backlog + l.requests * service)
                .saturating_sub(bucket)
                .min(cap)
        })
    };
    let work = last.requests.saturating_sub(own) * service;
    let within = if work < bucket {
        // ρ·s / (2(1 − ρ)) with ρ = work / bucket.
        work * service / (2 * (bucket - work))
    } else {
        u64::MAX
    };
    (backlog + within.min(work / 2)).min(cap)
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use proptest::prelude::*;

    use super::*;

    struct Cells(RefCell<Vec<u64>>);

    impl Cells {
        fn new() -> Self {
            Self(RefCell::new(vec![0; SLOTS as usize]))
        }
    }

    impl Calendar for Cells {
        fn update(&self, i: u64, f: &mut dyn FnMut(u64) -> Option<u64>) -> Result<u64, u64> {
            let mut words = self.0.borrow_mut();
            let w = words[i as usize];
            match f(w) {
                Some(new) => {
                    words[i as usize] = new;
                    Ok(w)
                }
                None => Err(w),
            }
        }

        fn load(&self, i: u64) -> u64 {
            self.0.borrow()[i as usize]
        }
    }

    const S: u64 = 31;
    const B: u64 = 128;

    fn history(last: Load) -> Vec<Load> {
        let mut loads = vec![Load::default(); HISTORY];
        loads.push(last);
        loads
    }

    #[test]
    fn a_core_alone_never_waits_however_many_requests_it_makes() {
        let loads = vec![
            Load {
                requests: 40,
                cores: 1
            };
            HISTORY + 1
        ];
        assert_eq!(wait(&loads, 40, S, B), 0);
    }

    #[test]
    fn a_lightly_loaded_resource_costs_little_and_more_load_costs_more() {
        let light = wait(
            &history(Load {
                requests: 2,
                cores: 2,
            }),
            1,
            S,
            B,
        );
        let heavier = wait(
            &history(Load {
                requests: 3,
                cores: 3,
            }),
            1,
            S,
            B,
        );
        // One other request in 128 cycles: ρ = 31/128, ρ·s/(2(1−ρ)) = 4.
        assert_eq!(light, 4);
        assert!(heavier > light, "{heavier} > {light}");
        assert!(heavier <= S, "at most half the others' work: {heavier}");
    }

    #[test]
    fn a_saturated_resource_makes_a_request_wait_one_service_per_other_core() {
        // 48 cores, each with a request in every bucket: far beyond what
        // one controller serves; the backlog is bounded by the cores.
        let loads = vec![
            Load {
                requests: 48,
                cores: 48
            };
            HISTORY + 1
        ];
        assert_eq!(wait(&loads, 1, S, B), 47 * S);
    }

    #[test]
    fn a_backlog_drains_a_bucket_at_a_time() {
        let mut loads = vec![Load::default(); HISTORY + 1];
        loads[HISTORY - 2] = Load {
            requests: 10,
            cores: 10,
        };
        let own = Load {
            requests: 1,
            cores: 1,
        };
        loads[HISTORY] = own;
        // 310 cycles of work two buckets back: 54 left for this bucket.
        assert_eq!(wait(&loads, 1, S, B), 310 - 2 * B);
        loads[HISTORY - 2] = Load::default();
        loads[0] = Load {
            requests: 10,
            cores: 10,
        };
        assert_eq!(wait(&loads, 1, S, B), 0, "long drained");
    }

    #[test]
    fn taking_requests_back_restores_the_bucket() {
        let c = Cells::new();
        add(&c, 7, 1, 1);
        add(&c, 7, 5, 1);
        add(&c, 7, -5, -1);
        assert_eq!(
            load(&c, 7),
            Load {
                requests: 1,
                cores: 1
            }
        );
        assert_eq!(load(&c, 8), Load::default());
    }

    #[test]
    fn a_slot_is_reused_by_later_buckets_and_a_late_request_is_forgotten() {
        let c = Cells::new();
        add(&c, 3, 2, 2);
        add(&c, 3 + SLOTS, 1, 1);
        assert_eq!(load(&c, 3), Load::default(), "reused");
        assert_eq!(
            load(&c, 3 + SLOTS),
            Load {
                requests: 1,
                cores: 1
            }
        );
        add(&c, 3, 4, 1);
        assert_eq!(
            load(&c, 3 + SLOTS),
            Load {
                requests: 1,
                cores: 1
            }
        );
    }

    proptest! {
        #[test]
        fn the_loads_do_not_depend_on_the_order_of_booking(
            requests in proptest::collection::vec((0u64..40, 1i64..4), 1..60),
            seed in any::<u64>(),
        ) {
            let forward = Cells::new();
            for &(k, n) in &requests {
                add(&forward, k, n, 1);
            }
            // The same requests in another order.
            let mut shuffled = requests.clone();
            let mut x = seed | 1;
            for i in (1..shuffled.len()).rev() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                shuffled.swap(i, (x % (i as u64 + 1)) as usize);
            }
            let other = Cells::new();
            for &(k, n) in &shuffled {
                add(&other, k, n, 1);
            }
            for k in 0..40 {
                prop_assert_eq!(load(&forward, k), load(&other, k));
            }
        }

        #[test]
        fn a_window_no_bucket_of_which_overflowed_has_no_backlog(
            loads in proptest::collection::vec((0u64..60, 1u64..8), HISTORY + 1),
            service in 1u64..4,
        ) {
            let loads: Vec<Load> = loads
                .into_iter()
                .map(|(requests, cores)| Load { requests, cores })
                .collect();
            // The recursion in full, as the module's docs give it.
            let (last, before) = loads.split_last().unwrap();
            let others = loads.iter().map(|l| l.cores).max().unwrap() - 1;
            let cap = others * service;
            let backlog = before.iter().fold(0u64, |b, l| {
                (b + l.requests * service).saturating_sub(B).min(cap)
            });
            let work = last.requests.saturating_sub(1) * service;
            let within = if work < B { work * service / (2 * (B - work)) } else { u64::MAX };
            let full = (backlog + within.min(work / 2)).min(cap);
            prop_assert_eq!(wait(&loads, 1, service, B), full);
        }

        #[test]
        fn the_wait_is_bounded_by_the_other_cores(
            loads in proptest::collection::vec((0u64..200, 1u64..64), HISTORY + 1),
            service in 1u64..60,
        ) {
            let loads: Vec<Load> = loads
                .into_iter()
                .map(|(requests, cores)| Load { requests, cores })
                .collect();
            let cores = loads.iter().map(|l| l.cores).max().unwrap();
            let w = wait(&loads, 1, service, B);
            prop_assert!(w <= (cores - 1) * service);
            // More load in the request's own bucket never shortens it.
            let mut more = loads.clone();
            more[HISTORY].requests += 3;
            prop_assert!(wait(&more, 1, service, B) >= w);
        }
    }
}
