//! Parsing with oxc on a stack big enough for any input: the stack every parsing thread
//! gets, the pool of such threads, a thread of its own for a big module, and the one parse
//! the ground floor needs (a module's `//` comments, for suppressions).

use oxc::allocator::Allocator;
use oxc::parser::Parser;
use oxc::span::SourceType;

/// The stack of every thread that parses. oxc's parser recurses once or more per
/// nesting level; this is reserved address space, touched only by deeply nested code.
pub const STACK_BYTES: usize = 256 * 1024 * 1024;

/// Stack the parser may need per byte of source, measured on the worst nesting we know
/// (`((((…))))`, `a => a => …`: about 1.5 KiB per source byte in a release build).
const STACK_BYTES_PER_SOURCE_BYTE: usize = 2 * 1024;

/// The threads modules are analysed and compiled on, each with a stack of [`STACK_BYTES`].
/// `None` only if the system cannot start threads: then the calling thread does the work.
pub fn analysis_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new().thread_name(|i| format!("analyze-{i}")).stack_size(STACK_BYTES).build().ok()
    })
    .as_ref()
}

/// Runs `parse` (of a source of `source_len` bytes) on a stack big enough for any nesting
/// it could hold: the calling thread's (which must have [`STACK_BYTES`]) for ordinary
/// modules, a thread of its own for big ones. `None` when no such thread can be had.
pub fn on_a_big_enough_stack<T: Send>(source_len: usize, parse: impl FnOnce() -> T + Send) -> Option<T> {
    let needed = source_len.saturating_mul(STACK_BYTES_PER_SOURCE_BYTE);
    if needed <= STACK_BYTES / 2 {
        return Some(parse());
    }
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(needed + STACK_BYTES / 2)
            .spawn_scoped(scope, parse)
            .ok()
            .and_then(|thread| thread.join().ok())
    })
}

/// Runs `parse` with this thread's arena, emptied first: a thread that parses file after
/// file reuses the memory of the biggest so far instead of asking the system for more each
/// time (and touching it anew). A parse within a parse gets an arena of its own.
pub fn with_arena<T>(parse: impl FnOnce(&Allocator) -> T) -> T {
    thread_local! {
        static ARENA: std::cell::Cell<Option<Allocator>> = const { std::cell::Cell::new(None) };
    }
    let mut allocator = ARENA.with(std::cell::Cell::take).unwrap_or_default();
    allocator.reset();
    let result = parse(&allocator);
    ARENA.with(|arena| arena.set(Some(allocator)));
    result
}

/// The spans of the `//` comments of the module `text` (shown as `display_path`, whose
/// extension picks the grammar), as the parser reads them: a line of a template literal or
/// of a block comment that looks like one is not one. Like any parse, it needs the stack
/// [`on_a_big_enough_stack`] gives.
pub fn line_comments(display_path: &str, text: &str) -> Vec<(u32, u32)> {
    let allocator = Allocator::default();
    let source_type = SourceType::from_path(display_path).unwrap_or_else(|_| SourceType::ts());
    let parsed = Parser::new(&allocator, text, source_type).parse();
    if parsed.panicked {
        return Vec::new();
    }
    parsed.program.comments.iter().filter(|comment| comment.is_line()).map(|c| (c.span.start, c.span.end)).collect()
}
