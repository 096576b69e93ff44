//! A small global allocator for the WebAssembly module: power-of-two size classes, one
//! free list per class, fresh blocks cut from pages obtained with `memory.grow`.
//!
//! Why: the default allocator (dlmalloc, which is also what wasm-bindgen's exported
//! `malloc` uses) is ~5.7 KB of the module's code, a sizeable share of a 120 KB budget;
//! this one is a few hundred bytes. The module is single-threaded (wasm32 without the
//! atomics feature), so plain interior mutability is enough.
//!
//! Memory is reused, never returned to the host (wasm memory cannot shrink): a freed block
//! goes to the free list of its class and the next allocation of that class takes it. A
//! workload that repeats (a loop creating and freeing engines) therefore reaches a steady
//! state instead of growing; `tests/node/wasm.test.mjs` checks that. The cost is up to 2x
//! internal waste per block and no coalescing, acceptable for the small, short-lived
//! objects the engines make.

use core::alloc::{GlobalAlloc, Layout};
use core::arch::wasm32;
use core::cell::UnsafeCell;
use core::ptr;

const PAGE: usize = 65536;
/// Smallest block: room for the free list's next pointer, and 8-byte alignment.
const MIN_CLASS: u32 = 3;
/// Classes up to 2^31 bytes (the whole 32-bit address space is 2^32).
const CLASSES: usize = 32;

struct State {
    /// Head of each class's free list (0 = empty); a free block stores the next one's address.
    free: [usize; CLASSES],
    /// Where the next fresh block is cut from, and the end of the memory obtained so far.
    next: usize,
    end: usize,
}

/// The module's global allocator (see the module documentation).
pub struct SizeClassAllocator {
    state: UnsafeCell<State>,
}

// SAFETY: wasm32-unknown-unknown without the atomics feature has a single thread.
unsafe impl Sync for SizeClassAllocator {}

impl SizeClassAllocator {
    pub const fn new() -> Self {
        SizeClassAllocator { state: UnsafeCell::new(State { free: [0; CLASSES], next: 0, end: 0 }) }
    }
}

/// The class of a layout: blocks of `2^class` bytes, aligned to their size (so any alignment
/// up to the block size holds for a reused block too).
fn class_of(layout: Layout) -> u32 {
    let size = layout.size().max(layout.align()).max(1 << MIN_CLASS);
    usize::BITS - (size - 1).leading_zeros()
}

impl State {
    /// A fresh block of `2^class` bytes aligned to its size, or null when memory runs out.
    unsafe fn fresh(&mut self, class: u32) -> *mut u8 {
        let size = 1usize << class;
        // Align `next` up to the block size, handing the gap to the smaller classes' free
        // lists as the largest aligned pieces that fit, so nothing is lost.
        while self.next & (size - 1) != 0 && self.next < self.end {
            let piece = self.next & self.next.wrapping_neg();
            let room = self.end - self.next;
            if piece > room {
                break;
            }
            self.push(piece.trailing_zeros(), self.next);
            self.next += piece;
        }
        let start = (self.next + size - 1) & !(size - 1);
        if start < self.next || start.checked_add(size).is_none_or(|stop| stop > self.end) {
            // Grow the memory; wasm pages are 64 KiB-aligned, which suffices for classes
            // up to a page, and larger blocks start at a page aligned to their size.
            let Some(want) = size.checked_mul(if size > PAGE { 2 } else { 1 }) else {
                return ptr::null_mut();
            };
            let pages = want.div_ceil(PAGE);
            let previous = wasm32::memory_grow(0, pages);
            if previous == usize::MAX {
                return ptr::null_mut();
            }
            let base = previous * PAGE;
            if base != self.end {
                // Someone else grew the memory in between: start over at the new pages.
                self.next = base;
            }
            self.end = base + pages * PAGE;
            return self.fresh(class);
        }
        self.next = start + size;
        start as *mut u8
    }

    unsafe fn push(&mut self, class: u32, block: usize) {
        if let Some(head) = self.free.get_mut(class as usize) {
            *(block as *mut usize) = *head;
            *head = block;
        }
    }

    unsafe fn pop(&mut self, class: u32) -> *mut u8 {
        match self.free.get_mut(class as usize) {
            Some(head) if *head != 0 => {
                let block = *head;
                *head = *(block as *const usize);
                block as *mut u8
            }
            Some(_) => self.fresh(class),
            None => ptr::null_mut(),
        }
    }
}

unsafe impl GlobalAlloc for SizeClassAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        (*self.state.get()).pop(class_of(layout))
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        (*self.state.get()).push(class_of(layout), block as usize);
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = class_of(layout);
        let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
        let new = class_of(new_layout);
        if new == old {
            return block;
        }
        let moved = self.alloc(new_layout);
        if !moved.is_null() {
            ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
            self.dealloc(block, layout);
        }
        moved
    }
}
