package booking

import (
	"strings"
	"testing"
)

func TestRedactDSN(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://ann:s3cret@db.example:5432/cinema", "postgres://ann:****@db.example:5432/cinema"},
		{"postgresql://ann:s3cret@db/cinema?sslmode=require", "postgresql://ann:****@db/cinema?sslmode=require"},
		{"POSTGRES://ann:s3cret@db/cinema", "POSTGRES://ann:****@db/cinema"},
		{"PostgreSQL://ann:s3cret@db/cinema", "PostgreSQL://ann:****@db/cinema"},
		{"  postgres://ann:s3cret@db/cinema  ", "  postgres://ann:****@db/cinema  "},
		{"postgres:/ann:s3cret@db/cinema", "postgres:/ann:****@db/cinema"},
		{"postgres:ann:s3cret@db/cinema", "postgres:ann:****@db/cinema"},
		{"postgres:///ann:s3cret@db/cinema", "postgres:///ann:****@db/cinema"},
		{"ann:s3cret@db/cinema", "ann:****@db/cinema"},
		{"postgres://ann:s3:cr@t@db/cinema", "postgres://ann:****@db/cinema"},
		{"postgres://ann:s3 cret@db/cinema", "postgres://ann:****@db/cinema"},
		{"postgres://db/cinema?password=s3cret", "postgres://db/cinema?password=****"},
		{"postgres://db/cinema?sslmode=disable&password=s3cret&x=1", "postgres://db/cinema?sslmode=disable&password=****&x=1"},
		{"postgres://db/cinema?sslpassword=s3cret#top", "postgres://db/cinema?sslpassword=****#top"},
		{"host=db password=s3cret dbname=cinema", "host=db password=**** dbname=cinema"},
		{"host=db PASSWORD = s3cret dbname=cinema", "host=db PASSWORD = **** dbname=cinema"},
		{"host=db password='s3 cr\\'et' user=ann", "host=db password=**** user=ann"},
		{"host=db password='unclosed s3cret", "host=db password=****"},
		{"host=db password=s3\\ cret user=ann", "host=db password=**** user=ann"},
		{" host=db password=p@ss:w user=ann ", " host=db password=**** user=ann "},
		{"postgres://ann@db/cinema", "postgres://ann@db/cinema"},
		{"postgres://db/cinema", "postgres://db/cinema"},
		{"host=db user=ann", "host=db user=ann"},
		{"", ""},
	} {
		if got := RedactDSN(c.in); got != c.want {
			t.Errorf("RedactDSN(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Whatever surrounds it, a password of an address never survives
// redaction.
func TestRedactDSN_NeverLeaks(t *testing.T) {
	const pw = "Pa55w0rd"
	for _, s := range []string{
		"postgres://u:" + pw + "@h:1/d", "POSTGRES://u:" + pw + "@h/d", " postgres://u:" + pw + "@h/d",
		"postgres:/u:" + pw + "@h/d", "host=h password=" + pw, "host=h password='" + pw + "'",
		"postgres://h/d?password=" + pw, "postgres://u:" + pw + "@h/d?password=" + pw,
		"x postgres://u:" + pw + "@h/d", "postgres://u:" + pw + "@h/d?application_name=a@b",
		"host=h password=" + pw + "@x user=u", "İİİ password=" + pw,
	} {
		if got := RedactDSN(s); strings.Contains(got, pw) {
			t.Errorf("RedactDSN(%q) = %q", s, got)
		}
	}
}

func TestRedactSecretsOf(t *testing.T) {
	dsn := "host=db password='s3cret' user=ann"
	got := RedactSecretsOf(`cannot parse "host=db password=s3cret": bad`, dsn)
	if strings.Contains(got, "s3cret") {
		t.Fatalf("left the password in %q", got)
	}
	if got := RedactSecretsOf("failed to connect", "postgres://ann@db/x"); got != "failed to connect" {
		t.Fatalf("changed text without a password: %q", got)
	}
}
