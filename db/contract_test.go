package db_test

import (
	"reflect"
	"slices"
	"testing"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/contract"
	"boxoffice/internal/dbtest"
)

// adapterOwn are the exported methods of *db.Store that are the SQLite
// adapter's own and no capability of the domain: the file's life and the
// writer's figures. Callers that need them hold a *db.Store anyway.
var adapterOwn = []string{"Close", "Path", "Stats", "WriteCosts"}

// Every other exported method of *db.Store belongs to one of booking's
// capabilities, so a caller can ask for the few it uses and a second
// backend knows what to implement: a method added to the store alone
// fails here until its interface declares it.
func TestStore_EveryMethodInTheContract(t *testing.T) {
	t.Parallel()
	contract := reflect.TypeFor[booking.Store]()
	st := reflect.TypeFor[*db.Store]()
	for i := 0; i < st.NumMethod(); i++ {
		name := st.Method(i).Name
		if _, ok := contract.MethodByName(name); !ok && !slices.Contains(adapterOwn, name) {
			t.Errorf("*db.Store.%s is in no capability of booking.Store: declare it in booking/contract.go", name)
		}
	}
}

// TestContract runs booking's contract suite (internal/contract) on a
// SQLite file in the test's temp dir; pg's tests run the same suite on
// PostgreSQL. Each case has a file of its own, so the cases of a group
// run in parallel.
func TestContract(t *testing.T) {
	t.Parallel()
	contract.Run(t, func(t *testing.T, opts contract.Options) contract.Store {
		t.Parallel()
		// No sweeper: the suite expires holds on its clock, by hand. No
		// poller: it looks for other processes' writes, and a case has
		// none (its connection cost each of the 235 cases a schema read;
		// the poller is tested across processes in this package).
		s, _ := dbtest.OpenSeeded(t, db.Options{Clock: opts.Clock.Now, TicketKey: opts.TicketKey, SweepInterval: -1, PollInterval: -1}, opts.Seed)
		return s
	})
}
