package db_test

import (
	"context"
	"path/filepath"
	"testing"

	"boxoffice/db"
	"boxoffice/internal/dbtest"
)

// A file an older boxoffice made, once opened (and so migrated), checks
// against every migration: a schema brought up to date step by step is
// the one a new file gets, which is what lets check and restore compare
// schemas at all.
func TestVerify_OlderSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	if err := db.MigrateOnly(path, 21); err != nil {
		t.Fatal(err)
	}
	s := dbtest.Open(t, path, db.Options{SweepInterval: -1})
	s.Close()
	if report, err := db.Verify(ctx, path); err != nil || !report.OK() {
		t.Fatalf("the same file migrated to %d: %+v %v", db.SchemaVersion(), report, err)
	}
}
