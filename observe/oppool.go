package observe

import "sync"

var ops = sync.Pool{New: func() any { return new(Op) }}

// NewOp returns a zeroed Op from a pool. keel's own code takes the Op of
// each operation it observes here and gives it back with [ReleaseOp] once
// the operation's [Span] has ended: an Observer keeps no Op after End, so
// the next operation may reuse it. An Op is 448 bytes, the largest share
// of keel's own cost of a traced operation (BenchmarkSpan in
// observe/telemetry).
func NewOp() *Op { return ops.Get().(*Op) }

// ReleaseOp clears op, so that it holds nothing alive, and puts it back in
// the pool. op must not be used after: call it only once op's Span has
// ended.
func ReleaseOp(op *Op) {
	*op = Op{}
	ops.Put(op)
}
