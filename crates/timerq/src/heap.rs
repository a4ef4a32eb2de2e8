//! The queue's storage: a fixed set of timer slots and a binary min-heap of the pending ones, ordered by
//! (date, start order), with each slot knowing its heap position so a stop is O(log n) without search.
//!
//! Capacity is fixed at construction; nothing allocates after it (a hot path must not).

/// Heap position of a slot that is not pending.
const IDLE: u32 = u32::MAX;

/// One timer's state.
#[derive(Debug, Clone, Copy)]
pub(super) struct Slot {
    /// Expiry date in the queue's time base.
    pub date: u64,
    /// Period in the time base; 0 for a one-shot timer.
    pub interval: u64,
    /// Start order: breaks ties between equal dates first-started-first-fired.
    seq: u64,
    /// Index in `heap`, or `IDLE`.
    pos: u32,
}

/// Slots and the heap of pending slot indices.
#[derive(Debug, Clone)]
pub(super) struct TimerHeap {
    slots: Vec<Slot>,
    heap: Vec<u32>,
    next_seq: u64,
}

impl TimerHeap {
    /// `capacity` idle slots. Panics: `capacity` does not fit `u32` less one (the idle marker).
    pub fn new(capacity: usize) -> TimerHeap {
        assert!(capacity < IDLE as usize, "timer queue capacity {capacity} is too large (max {})", IDLE - 1);
        let idle = Slot { date: 0, interval: 0, seq: 0, pos: IDLE };
        TimerHeap { slots: vec![idle; capacity], heap: Vec::with_capacity(capacity), next_seq: 0 }
    }

    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    pub fn slot(&self, id: u32) -> &Slot {
        &self.slots[id as usize]
    }

    pub fn is_pending(&self, id: u32) -> bool {
        self.slots[id as usize].pos != IDLE
    }

    /// The pending slot with the earliest date.
    #[inline]
    pub fn head(&self) -> Option<u32> {
        self.heap.first().copied()
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Makes idle slot `id` pending at `date`. The caller has removed it first if it was pending.
    #[inline]
    pub fn insert(&mut self, id: u32, date: u64, interval: u64) {
        debug_assert!(!self.is_pending(id), "timer {id} inserted twice");
        let pos = self.heap.len();
        let seq = self.next_seq;
        self.next_seq += 1;
        self.slots[id as usize] = Slot { date, interval, seq, pos: pos as u32 };
        self.heap.push(id);
        self.sift_up(pos);
    }

    /// Makes `id` idle; false when it was not pending.
    #[inline]
    pub fn remove(&mut self, id: u32) -> bool {
        let pos = self.slots[id as usize].pos;
        if pos == IDLE {
            return false;
        }
        self.slots[id as usize].pos = IDLE;
        let last = self.heap.pop().expect("a pending timer is in the heap");
        if last != id {
            let pos = pos as usize;
            self.heap[pos] = last;
            self.slots[last as usize].pos = pos as u32;
            self.sift_down(pos);
            self.sift_up(pos);
        }
        true
    }

    fn key(&self, id: u32) -> (u64, u64) {
        let s = &self.slots[id as usize];
        (s.date, s.seq)
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.slots[self.heap[a] as usize].pos = a as u32;
        self.slots[self.heap[b] as usize].pos = b as u32;
    }

    fn sift_up(&mut self, mut pos: usize) {
        while pos > 0 {
            let parent = (pos - 1) / 2;
            if self.key(self.heap[pos]) >= self.key(self.heap[parent]) {
                break;
            }
            self.swap(pos, parent);
            pos = parent;
        }
    }

    fn sift_down(&mut self, mut pos: usize) {
        loop {
            let (l, r) = (2 * pos + 1, 2 * pos + 2);
            let mut least = pos;
            if l < self.heap.len() && self.key(self.heap[l]) < self.key(self.heap[least]) {
                least = l;
            }
            if r < self.heap.len() && self.key(self.heap[r]) < self.key(self.heap[least]) {
                least = r;
            }
            if least == pos {
                return;
            }
            self.swap(pos, least);
            pos = least;
        }
    }

    /// The heap's own buffer capacity, for the no-allocation test.
    #[cfg(test)]
    pub fn buffer_capacity(&self) -> usize {
        self.heap.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Removing from the middle keeps the heap order and every slot's position right.
    #[test]
    fn removal_anywhere_keeps_order_and_positions() {
        let mut h = TimerHeap::new(8);
        for (id, date) in [(0, 50), (1, 10), (2, 40), (3, 20), (4, 30), (5, 60), (6, 5), (7, 45)] {
            h.insert(id, date, 0);
        }
        assert!(h.remove(4) && !h.remove(4));
        assert!(h.remove(6));
        for (pos, &id) in h.heap.iter().enumerate() {
            assert_eq!(h.slots[id as usize].pos as usize, pos);
        }
        let mut dates = Vec::new();
        while let Some(id) = h.head() {
            dates.push(h.slot(id).date);
            h.remove(id);
        }
        assert_eq!(dates, [10, 20, 40, 45, 50, 60]);
        assert_eq!(h.buffer_capacity(), 8, "the heap never reallocated");
    }

    #[test]
    fn equal_dates_fire_in_start_order() {
        let mut h = TimerHeap::new(3);
        for id in [2, 0, 1] {
            h.insert(id, 7, 0);
        }
        let mut order = Vec::new();
        while let Some(id) = h.head() {
            order.push(id);
            h.remove(id);
        }
        assert_eq!(order, [2, 0, 1]);
    }
}
