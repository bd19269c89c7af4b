package db

import "sync/atomic"

// preparedHook, when set, is told the text of every statement the store
// prepares, on the writer's connection or the read pool. The plan guard
// (plan_test.go) sets it to collect the statements a workload really runs
// and checks each one's query plan.
var preparedHook atomic.Pointer[func(query string)]

func notePrepared(query string) {
	if h := preparedHook.Load(); h != nil {
		(*h)(query)
	}
}
