package pg_test

import (
	"context"
	"net"
	"net/url"
	"os"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/pg"
)

// TestOpen_NoServerIsUnavailable: nothing listens at the address, so the
// store is unavailable in the clerk's words, not an internal error, and
// says nothing of saving: opening writes nothing (a command that only
// reads says the same). It needs no server.
func TestOpen_NoServerIsUnavailable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nobody listens there now
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := pg.Open(ctx, "postgres://postgres@"+addr+"/boxoffice?sslmode=disable", pg.Options{})
	if err == nil {
		s.Close()
		t.Fatal("opened a store on a closed port")
	}
	if booking.ErrorCode(err) != booking.EUnavailable || booking.ErrorMessage(err) != "The database server cannot be reached." {
		t.Fatalf("got %v", err)
	}
}

// TestOpen_ServerThatRefusesIsNotUnavailable: a server that answered and
// refused (a database that is not there) is a setting to fix, not a
// server to wait for.
func TestOpen_ServerThatRefusesIsNotUnavailable(t *testing.T) {
	t.Parallel()
	base := os.Getenv("BOXOFFICE_TEST_PG")
	if base == "" {
		t.Skip("BOXOFFICE_TEST_PG is empty: no PostgreSQL to test against (.ci/pg starts one)")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/no_such_database_here"
	s, err := pg.Open(context.Background(), u.String(), pg.Options{})
	if err == nil {
		s.Close()
		t.Fatal("opened a store on a database that is not there")
	}
	if code := booking.ErrorCode(err); code == booking.EUnavailable || code == "" {
		t.Fatalf("a missing database reads %v", err)
	}
}
