// gobbody prints, for each input line "name<TAB>message", the hex of the body
// that goqite's jobs runner stores (jobs/runner.go Create, maragudk/goqite@23697cc78af6):
// gob.NewEncoder(&buf).Encode(message{Name: name, Message: []byte(message)}).
// The struct is declared with the same type and field names as upstream's
// unexported `message`, because gob writes them into the stream.
// Standard library only (Debian golang-go 1.19): `go run gobbody.go < input`.
package main

import (
	"bufio"
	"bytes"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
)

type message struct {
	Name    string
	Message []byte
}

func main() {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), "\t", 2)
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(message{Name: parts[0], Message: []byte(parts[1])}); err != nil {
			panic(err)
		}
		fmt.Println(hex.EncodeToString(buf.Bytes()))
	}
}
