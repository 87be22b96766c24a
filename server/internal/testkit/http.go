package testkit

import "net/http"

func SetHeader(k, v string) func(r *http.Request) {
	return func(r *http.Request) { r.Header.Set(k, v) }
}
