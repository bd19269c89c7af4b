package pg_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"boxoffice/internal/contract"
	"boxoffice/pg"
)

// The plan guard, PostgreSQL's twin of db's (db/plan_test.go): every
// statement the store sends while the contract suite runs (a tracer on
// each store's pool records them) is planned as a pooled connection keeps
// it, generic, on a schema holding a migrated history with its statistics
// (planhistory_test.go), and none may read a table that grows with
// history whole: no sequential scan, no index walked end to end, unless
// allowed below with the reason.

// pgHistoryTables grow with every sale, hold, call or commit. Not here:
// the programme's and staff's tables, shifts and day closes (one a clerk
// or a day), and collect_guesses (each row is forgotten at its
// keep_until and swept).
var pgHistoryTables = map[string]bool{
	"bookings": true, "booking_words": true, "seat_claims": true, "tickets": true, "payments": true,
	"holds": true, "waitlist": true, "audit": true, "seat_blocks": true, "exchanges": true,
	"reservations": true, "kiosk_holds": true,
	"customers": true, "customer_words": true, "film_watchers": true,
	"item_orders": true, "item_lines": true, "item_payments": true,
	"voucher_redemptions": true, "giftcards": true, "giftcard_moves": true,
	"shift_events": true,
}

// pgBoundedIndexes are partial indexes whose rows are only what is live
// now: reading one whole costs what is open at the counters, not history.
var pgBoundedIndexes = map[string]string{
	"holds_live_by_show":           "holds still 'held': each lapses within its TTL and the sweeper or the next sale on its show expires it",
	"holds_live_by_owner":          "holds still 'held', as holds_live_by_show",
	"seat_claims_held_by_hold":     "claims of holds still 'held': a sale, a release or the sweeper moves each on within its hold's TTL",
	"reservations_unpaid_by_phone": "reservations still 'reserved': each is paid or lapses at its cut-off, before its show, and the sweeper lapses it",
	"film_watchers_to_call":        "watchers told of a show and not yet called: the clerks' call list, emptied as they call",
}

// pgAllowedScans are statements that may read a history table whole, each
// with the reason, matched by a fragment of their text.
var pgAllowedScans = []struct{ fragment, reason string }{
	{"GROUP BY show_id, seat_id HAVING count(*) > 1", checkReason},
	{"JOIN seat_blocks b ON b.seat_id = c.seat_id AND (b.show_id = c.show_id OR", checkReason},
	{"FROM exchanges e WHERE e.from_booking = b.id) FROM bookings b", checkReason},
	{"WHERE t.status = 'admitted' GROUP BY b.show_id, t.seat_id", checkReason},
	{"FROM tickets WHERE status = 'admitted' AND (admitted_at IS NULL", checkReason},
	{"FROM payments p JOIN tickets t ON t.id = p.ticket_id WHERE p.kind = 'refund' GROUP BY t.id", checkReason},
	{"FROM giftcards g WHERE g.balance <>", checkReason},
	{"detail, hash FROM audit ORDER BY id", "CheckInvariants: the audit chain, walked whole on demand, never by a counter"},
	{"SELECT EXISTS (SELECT 1 FROM bookings)", "HasSales: the scan stops at the first booking; run once by init --demo-history"},
	{"EXISTS (SELECT 1 FROM exchanges e WHERE e.to_booking = p.booking_id) AS exchanged", "takings: whether a sale came of an exchange, hashed once a report from every exchange, a handful a week"},
}

const checkReason = "CheckInvariants: a full check, run on demand, never by a counter"

// planRecorder is a pgx tracer that keeps the text of every statement
// a store's pool runs once it is switched on (after the seed).
type planRecorder struct {
	mu   sync.Mutex
	on   bool
	seen map[string]bool
	list *[]string
}

func (r *planRecorder) record(sql string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.on && !r.seen[sql] {
		r.seen[sql] = true
		*r.list = append(*r.list, sql)
	}
}

func (r *planRecorder) start() { r.mu.Lock(); r.on = true; r.mu.Unlock() }

func (r *planRecorder) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	r.record(d.SQL)
	return ctx
}
func (r *planRecorder) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *planRecorder) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}
func (r *planRecorder) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	r.record(d.SQL)
}
func (r *planRecorder) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// workload is what the contract suite's stores ran after their seed, in
// the order first seen: TestContract records it (its stores' pools are
// traced) and plans it at its end, so the suite runs once for both.
var workload = struct {
	mu   sync.Mutex
	seen map[string]bool
	list []string
}{seen: map[string]bool{}}

// recordingStore opens a store for a contract case whose pool adds what
// it runs after the seed to workload.
func recordingStore(t *testing.T, opts contract.Options) *pg.Store {
	rec := &planRecorder{seen: map[string]bool{}, list: new([]string)}
	s, err := pg.Open(context.Background(), testURL(t), pg.Traced(pg.Options{Clock: opts.Clock.Now, TicketKey: opts.TicketKey, MaxConns: 60}, rec))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		rec.mu.Lock()
		defer rec.mu.Unlock()
		workload.mu.Lock()
		defer workload.mu.Unlock()
		for _, q := range *rec.list {
			if !workload.seen[q] {
				workload.seen[q] = true
				workload.list = append(workload.list, q)
			}
		}
	})
	if err := s.Seed(context.Background(), opts.Seed, false); err != nil {
		t.Fatal(err)
	}
	rec.start()
	return s
}

// runFlag is the first element of -test.run (before any "/"), and
// whether it names subtests too.
func runFlag() (first string, partial bool) {
	f := flag.Lookup("test.run")
	if f == nil {
		return "", false
	}
	first, rest, partial := strings.Cut(f.Value.String(), "/")
	return first, partial && rest != ""
}

// contractRuns says whether this test binary runs TestContract.
func contractRuns() bool {
	run, _ := runFlag()
	ok, _ := regexp.MatchString(run, "TestContract")
	return run == "" || ok
}

// recordedWorkload is what TestContract's cases ran; it skips when only
// some cases ran (-run TestContract/Group): too little to plan.
func recordedWorkload(t *testing.T) []string {
	t.Helper()
	if _, partial := runFlag(); partial {
		t.Skip("only some of the contract's cases ran: the plan guard plans the whole suite's statements")
	}
	workload.mu.Lock()
	defer workload.mu.Unlock()
	if len(workload.list) < 200 || !slices.ContainsFunc(workload.list, func(q string) bool { return strings.HasPrefix(q, "INSERT INTO bookings") }) {
		t.Fatalf("recorded only %d statements: the recording is broken", len(workload.list))
	}
	return slices.Clone(workload.list)
}

// ownWorkload runs the contract suite here, recording, for a binary that
// does not run TestContract (go test -run PlanGuard).
func ownWorkload(t *testing.T) []string {
	t.Helper()
	recordOnce.Do(func() {
		t.Run("workload", func(t *testing.T) {
			contract.RunConfig(t, func(t *testing.T, opts contract.Options) contract.Store {
				t.Parallel()
				return recordingStore(t, opts)
			}, contract.Config{Known: pgDifferences})
		})
	})
	return recordedWorkload(t)
}

var recordOnce sync.Once

// planNode is a node of EXPLAIN (FORMAT JSON).
type planNode struct {
	NodeType  string     `json:"Node Type"`
	Relation  string     `json:"Relation Name"`
	Index     string     `json:"Index Name"`
	IndexCond string     `json:"Index Cond"`
	Filter    string     `json:"Filter"`
	Plans     []planNode `json:"Plans"`
}

// wholeReads are the nodes of n's tree that read a history table whole:
// a sequential scan, or an index walked with no condition, which is not a
// bounded partial index nor stopped by a LIMIT. limited says n's rows are
// cut off by a Limit above it, unsorted: an index walked in order with no
// filter then reads only the rows the Limit lets through (the newest
// page of the audit, the newest sealed row).
func wholeReads(n planNode, limited bool) []string {
	var out []string
	if pgHistoryTables[n.Relation] {
		walk := n.NodeType == "Index Scan" || n.NodeType == "Index Only Scan"
		switch {
		case n.NodeType == "Seq Scan":
			out = append(out, "Seq Scan on "+n.Relation)
		case walk && n.IndexCond == "" && pgBoundedIndexes[n.Index] == "" && !(limited && n.Filter == ""):
			out = append(out, fmt.Sprintf("%s using %s on %s, no condition", n.NodeType, n.Index, n.Relation))
		}
	}
	for i, c := range n.Plans {
		// A Limit stops its child; a nested loop or a Limit's stream
		// stops its outer (first) side with it.
		streams := n.NodeType == "Limit" || (limited && i == 0 && (n.NodeType == "Nested Loop" || n.NodeType == "Subquery Scan"))
		out = append(out, wholeReads(c, streams)...)
	}
	return out
}

// plannable is whether q is a statement PostgreSQL plans (not BEGIN,
// SET, LISTEN…), after any leading comment.
func plannable(q string) bool {
	f := strings.Fields(q)
	if len(f) == 0 {
		return false
	}
	switch strings.ToUpper(f[0]) {
	case "SELECT", "INSERT", "UPDATE", "DELETE", "WITH":
		return true
	}
	return false
}

func pgAllowed(q string) bool {
	q = oneLine(q)
	return slices.ContainsFunc(pgAllowedScans, func(a struct{ fragment, reason string }) bool { return strings.Contains(q, a.fragment) })
}

// genericPlan is q's plan as a pooled connection keeps it once it has run
// a few times: generic, for any parameters. PostgreSQL 15 has no EXPLAIN
// (GENERIC_PLAN), so q is prepared (its parameters' types inferred as the
// store's own prepare infers them) and explained executed with NULLs
// under force_generic_plan. conn may be in a transaction.
func genericPlan(ctx context.Context, conn pgx.Tx, q string) (planNode, error) {
	simple := pgx.QueryExecModeSimpleProtocol
	if _, err := conn.Exec(ctx, `DEALLOCATE ALL`, simple); err != nil {
		return planNode{}, err
	}
	if _, err := conn.Exec(ctx, `PREPARE plan_guard AS `+q, simple); err != nil {
		return planNode{}, err
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT cardinality(parameter_types) FROM pg_prepared_statements WHERE name = 'plan_guard'`, simple).Scan(&n); err != nil {
		return planNode{}, err
	}
	args := ""
	if n > 0 {
		args = "(" + strings.TrimSuffix(strings.Repeat("NULL, ", n), ", ") + ")"
	}
	var out []byte
	if err := conn.QueryRow(ctx, `EXPLAIN (FORMAT JSON) EXECUTE plan_guard`+args, simple).Scan(&out); err != nil {
		return planNode{}, err
	}
	var plans []struct{ Plan planNode }
	if err := json.Unmarshal(out, &plans); err != nil || len(plans) != 1 {
		return planNode{}, fmt.Errorf("plan %s: %v", out, err)
	}
	return plans[0].Plan, nil
}

// pgPlanProblems plans each statement in tx and names every whole read of
// a history table that is not allowed; BOXOFFICE_PLANS logs every plan.
func pgPlanProblems(t testing.TB, tx pgx.Tx, stmts []string) []string {
	t.Helper()
	ctx := context.Background()
	if _, err := tx.Exec(ctx, `SET LOCAL plan_cache_mode = force_generic_plan`); err != nil {
		t.Fatal(err)
	}
	var problems []string
	for _, q := range stmts {
		if !plannable(q) {
			continue
		}
		plan, err := genericPlan(ctx, tx, q)
		if err != nil {
			t.Fatalf("plan %s: %v", oneLine(q), err)
		}
		reads := wholeReads(plan, false)
		if os.Getenv("BOXOFFICE_PLANS") != "" {
			b, _ := json.Marshal(plan)
			t.Logf("%s\n\t%s", oneLine(q), b)
		}
		if len(reads) == 0 || pgAllowed(q) {
			continue
		}
		// A second opinion with sequential scans priced out: a table of
		// the history that is a few pages here is read whole because it
		// is small, and on a year the planner takes the index it then
		// takes here. A statement that still reads it whole has no index
		// to serve it.
		if reads, err = forcedReads(ctx, tx, q); err != nil {
			t.Fatalf("plan %s: %v", oneLine(q), err)
		}
		if len(reads) == 0 {
			continue
		}
		problems = append(problems, fmt.Sprintf("%s in:\n\t%s", strings.Join(reads, ", "), oneLine(q)))
	}
	return problems
}

// forcedReads are q's whole reads planned with sequential scans priced
// out (enable_seqscan off, for tx's transaction only).
func forcedReads(ctx context.Context, tx pgx.Tx, q string) ([]string, error) {
	if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
		return nil, err
	}
	plan, err := genericPlan(ctx, tx, q)
	if _, rerr := tx.Exec(ctx, `SET LOCAL enable_seqscan = on`); err == nil {
		err = rerr
	}
	return wholeReads(plan, false), err
}

func oneLine(q string) string { return strings.Join(strings.Fields(q), " ") }

// TestPlanGuard and TestPlanGuard_DroppedIndex plan what TestContract's
// cases ran at its end (planGuard); run alone, they run the suite first.
func TestPlanGuard(t *testing.T) {
	if contractRuns() {
		t.Skip("planned at the end of TestContract, on what its cases ran")
	}
	mustPlanHistory(t)
	planGuard(t, ownWorkload(t))
}

func TestPlanGuard_DroppedIndex(t *testing.T) {
	if contractRuns() {
		t.Skip("planned at the end of TestContract, on what its cases ran")
	}
	mustPlanHistory(t)
	planGuardDroppedIndex(t, ownWorkload(t))
}

// planGuard plans stmts on the history and fails on any that reads a
// table that grows with history whole.
func planGuard(t *testing.T, stmts []string) {
	history := mustPlanHistory(t)
	withPlanTx(t, history, func(tx pgx.Tx) {
		for _, p := range pgPlanProblems(t, tx, stmts) {
			t.Errorf("reads a table that grows with history whole: %s", p)
		}
	})
	t.Logf("planned %d statements", len(stmts))
}

// withPlanTx runs f in a transaction on the history schema, rolled back.
func withPlanTx(t *testing.T, history string, f func(pgx.Tx)) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, history)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	f(tx)
}

// planGuardDroppedIndex shows the guard can fail: without
// bookings_by_show, settling a show reads every booking ever sold to find
// the show's, and the guard says so.
func planGuardDroppedIndex(t *testing.T, stmts []string) {
	history := mustPlanHistory(t)
	withPlanTx(t, history, func(tx pgx.Tx) {
		if got := pgPlanProblems(t, tx, stmts); len(got) != 0 {
			t.Fatalf("problems before dropping the index: %v", got)
		}
		if _, err := tx.Exec(context.Background(), `DROP INDEX `+droppedIndex); err != nil {
			t.Fatal(err)
		}
		got := pgPlanProblems(t, tx, stmts)
		if !slices.ContainsFunc(got, func(p string) bool {
			return strings.HasPrefix(p, droppedScan) && strings.Contains(p, droppedStatement)
		}) {
			t.Fatalf("dropping %s went unnoticed: %v", droppedIndex, got)
		}
	})
}

// The index TestPlanGuard_DroppedIndex drops, the read it must then name,
// and a statement that read is in.
const (
	droppedIndex     = "bookings_by_show"
	droppedScan      = "Seq Scan on bookings"
	droppedStatement = "UPDATE bookings SET status = 'no_show' WHERE show_id = $1"
)

func TestPlanGuard_Parse(t *testing.T) {
	plan := planNode{NodeType: "Nested Loop", Plans: []planNode{
		{NodeType: "Seq Scan", Relation: "halls"},
		{NodeType: "Seq Scan", Relation: "tickets"},
		{NodeType: "Index Scan", Relation: "bookings", Index: "bookings_pkey", IndexCond: "(id = $1)"},
		{NodeType: "Index Scan", Relation: "holds", Index: "holds_live_by_show"},
		{NodeType: "Limit", Plans: []planNode{{NodeType: "Index Scan", Relation: "payments", Index: "payments_pkey", Filter: "(kind = 'sale')"}}},
		{NodeType: "Limit", Plans: []planNode{{NodeType: "Nested Loop", Plans: []planNode{
			{NodeType: "Index Scan", Relation: "audit", Index: "audit_by_at"},
			{NodeType: "Index Scan", Relation: "bookings", Index: "bookings_pkey"},
		}}}},
	}}
	got := wholeReads(plan, false)
	want := []string{"Seq Scan on tickets", "Index Scan using payments_pkey on payments, no condition", "Index Scan using bookings_pkey on bookings, no condition"}
	if !slices.Equal(got, want) {
		t.Errorf("whole reads %q, want %q", got, want)
	}
	for q, want := range map[string]bool{"SELECT 1": true, " with x AS (SELECT 1) SELECT 1": true, "BEGIN": false, "SET LOCAL x = 1": false, "": false} {
		if plannable(q) != want {
			t.Errorf("plannable(%q) = %v", q, !want)
		}
	}
	if !pgAllowed("SELECT EXISTS (SELECT 1\n\tFROM bookings)") || pgAllowed("SELECT 1 FROM bookings") {
		t.Error("pgAllowed matches the wrong statements")
	}
}
