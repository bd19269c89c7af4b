package server

import (
	"net"
	"testing"
)

// TestHostOf: the kiosk counts an IPv4 host by itself and an IPv6 one by
// its /64, so one customer line cannot try from a new address each time.
func TestHostOf(t *testing.T) {
	for addr, want := range map[string]string{
		"192.0.2.7:50123":                "192.0.2.7",
		"[::ffff:192.0.2.7]:50123":       "192.0.2.7",
		"[2001:db8:1:2:aaaa::1]:22":      "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff:ffff::9]:22": "2001:db8:1:2::/64",
		"[fe80::1%eth0]:22":              "fe80::/64",
		"[::1]:2223":                     "::/64",
	} {
		tcp, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := hostOf(tcp); got != want {
			t.Errorf("hostOf(%s) = %q, want %q", addr, got, want)
		}
	}
	if hostOf(nil) != "" {
		t.Error("hostOf(nil) is not empty")
	}
}
