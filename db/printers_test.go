package db_test

import (
	"context"
	"testing"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
)

func TestStore_SetTerminalPrinter(t *testing.T) {
	ctx := context.Background()
	mgr := booking.Actor{Name: "mgr", Role: booking.RoleManager}
	s, _ := dbtest.MustOpen(t, db.Options{})
	line, key := newAuthorizedKey(t)
	if _, err := s.AddTerminal(ctx, mgr, "till-1", line); err != nil {
		t.Fatal(err)
	}
	printerOf := func() string {
		t.Helper()
		_, term, err := s.IdentifyKey(ctx, key.Marshal())
		if err != nil {
			t.Fatal(err)
		}
		return term.Printer
	}
	if got := printerOf(); got != "" {
		t.Fatalf("new terminal's printer = %q, want none", got)
	}

	t.Run("OK", func(t *testing.T) {
		term, err := s.SetTerminalPrinter(ctx, mgr, "TILL-1", "tcp://192.168.1.50")
		if err != nil {
			t.Fatal(err)
		}
		if term.Name != "till-1" || term.Printer != "tcp://192.168.1.50:9100" {
			t.Fatalf("terminal = %+v", term)
		}
		if got := printerOf(); got != "tcp://192.168.1.50:9100" {
			t.Fatalf("IdentifyKey printer = %q", got)
		}
		list, err := s.ListTerminals(ctx, mgr)
		if err != nil || len(list) != 1 || list[0].Printer != "tcp://192.168.1.50:9100" {
			t.Fatalf("ListTerminals = %+v, %v", list, err)
		}
		if _, err := s.SetTerminalPrinter(ctx, mgr, "till-1", "/dev/usb/lp0"); err != nil {
			t.Fatal(err)
		}
		if got := printerOf(); got != "/dev/usb/lp0" {
			t.Fatalf("printer = %q", got)
		}
		if _, err := s.SetTerminalPrinter(ctx, mgr, "till-1", ""); err != nil {
			t.Fatal(err)
		}
		if got := printerOf(); got != "" {
			t.Fatalf("printer after clearing = %q", got)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		if _, err := s.SetTerminalPrinter(ctx, mgr, "till-1", "tcp://192.168.1.50"); err != nil {
			t.Fatal(err)
		}
		_, err := s.SetTerminalPrinter(ctx, mgr, "till-1", "http://printer")
		if booking.ErrorCode(err) != booking.EInvalid {
			t.Fatalf("err = %v, want EInvalid", err)
		}
		if got := printerOf(); got != "tcp://192.168.1.50:9100" {
			t.Fatalf("a refused URL changed the printer to %q", got)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := s.SetTerminalPrinter(ctx, mgr, "till-7", "tcp://192.168.1.50")
		if booking.ErrorCode(err) != booking.ENotFound {
			t.Fatalf("err = %v, want ENotFound", err)
		}
	})
	t.Run("ErrForbidden", func(t *testing.T) {
		clerk := booking.Actor{Name: "carl", Role: booking.RoleClerk}
		_, err := s.SetTerminalPrinter(ctx, clerk, "till-1", "")
		if booking.ErrorCode(err) != booking.EForbidden {
			t.Fatalf("err = %v, want EForbidden", err)
		}
	})
}
