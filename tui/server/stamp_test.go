package server

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"boxoffice/booking"
	"boxoffice/tui"
)

// identityTypes are the parameters that say who is acting or where: a
// session must stamp what the server knows of itself on each of them.
var identityTypes = []reflect.Type{
	reflect.TypeFor[booking.Actor](),
	reflect.TypeFor[booking.SignInRequest](),
	reflect.TypeFor[booking.CancelRequest](),
}

// declaredOn lists the methods the package's own source declares on
// receiver type recv (not the ones an embedded field passes through).
func declaredOn(t *testing.T, recv string) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	fset := token.NewFileSet()
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
			if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 {
				continue
			}
			if star, ok := fn.Recv.List[0].Type.(*ast.StarExpr); ok {
				if id, ok := star.X.(*ast.Ident); ok && id.Name == recv {
					out[fn.Name.Name] = true
				}
			}
		}
	}
	return out
}

// Every method a counter session calls that names someone — an actor, a
// sign-in, a cancel's approval — goes through the session's own wrapper,
// which stamps the terminal and address the server knows: one passed
// through by embedding would let a removed terminal's session act, since
// only the stamp carries the terminal. A method added to tui.Backend
// fails this until it is stamped.
func TestSessionStore_StampsEveryIdentity(t *testing.T) {
	own := declaredOn(t, "sessionStore")
	backend := reflect.TypeFor[tui.Backend]()
	checked := 0
	for i := 0; i < backend.NumMethod(); i++ {
		m := backend.Method(i)
		names := false
		for j := 0; j < m.Type.NumIn(); j++ {
			for _, it := range identityTypes {
				if m.Type.In(j) == it {
					names = true
				}
			}
		}
		if !names {
			continue
		}
		checked++
		if !own[m.Name] {
			t.Errorf("sessionStore passes %s through unstamped: declare it in stamp.go with s.as(actor)", m.Name)
		}
	}
	if checked < 15 {
		t.Fatalf("only %d methods of tui.Backend name someone: the check is broken", checked)
	}
}
