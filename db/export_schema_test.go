package db

import (
	"context"
	"database/sql"
)

// MigrateOnly applies to the new file at path the embedded migrations up
// to version upTo, and no further: the file an older boxoffice made.
func MigrateOnly(path string, upTo int) error {
	w, err := sql.Open("sqlite", dsn(path, "FULL", false, defaultBusyForTests))
	if err != nil {
		return err
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	s := &Store{write: w}
	ctx := context.Background()
	if _, err := s.appliedMigrations(ctx); err != nil {
		return err
	}
	files, err := migrationFiles()
	if err != nil {
		return err
	}
	for _, m := range files {
		if m.Version <= upTo {
			if err := s.applyMigration(ctx, m.Version, m.SQL); err != nil {
				return err
			}
		}
	}
	return nil
}

const defaultBusyForTests = 5e9
