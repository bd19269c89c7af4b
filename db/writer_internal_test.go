package db

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"boxoffice/booking"
)

func openBare(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "boxoffice.db"), Options{PINCost: 4, PollInterval: -1, SweepInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// A batch that meets SQLITE_BUSY runs again whole; each job's answer is
// the one of the attempt that committed, and a job that fails on its
// last attempt answers nothing, whatever an earlier attempt returned.
func TestWrite_AnswerOfTheLastAttempt(t *testing.T) {
	t.Parallel()
	s := openBare(t)
	ctx := context.Background()
	runs := 0
	got, err := write(s, ctx, booking.System, "rerun", func(w *wtx) (int, error) {
		runs++
		if runs == 1 {
			return 1, errBusyBatch // as if another process held the lock mid-batch
		}
		var n int
		err := w.queryRow(`SELECT count(*) FROM changes`).Scan(&n)
		return 100 + runs, err
	})
	if err != nil || runs != 2 || got != 102 {
		t.Fatalf("got %d after %d runs, %v; want 102 from the second run", got, runs, err)
	}

	runs = 0
	got, err = write(s, ctx, booking.System, "fails at last", func(w *wtx) (int, error) {
		runs++
		if runs == 1 {
			return 7, errBusyBatch
		}
		return 8, booking.Errorf(booking.EConflict, "no")
	})
	if booking.ErrorCode(err) != booking.EConflict || got != 0 {
		t.Fatalf("got %d, %v; want 0 and the last attempt's error", got, err)
	}
}

// The writer's queue is fed in one place, submit, and submit passes the
// quiesce drain first: no write, whoever adds it later, can skip Quiesce
// (giveBack, the releases a shutdown needs, is the one way past it).
func TestWrite_OnePathToTheWriter(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var sends []string
	var enters bool
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.SendStmt:
					if sel, ok := x.Chan.(*ast.SelectorExpr); ok && sel.Sel.Name == "jobs" {
						sends = append(sends, fn.Name.Name)
					}
				case *ast.CallExpr:
					if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Enter" && fn.Name.Name == "submit" {
						if q, ok := sel.X.(*ast.SelectorExpr); ok && q.Sel.Name == "quiesce" {
							enters = true
						}
					}
				}
				return true
			})
		}
	}
	if len(sends) != 1 || sends[0] != "submit" {
		t.Errorf("jobs are queued in %v, want only in submit", sends)
	}
	if !enters {
		t.Error("submit does not enter the quiesce drain")
	}
}
