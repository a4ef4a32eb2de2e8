package main

import (
	"encoding/json"
	"fmt"
	"io"
)

// Outcome is what an experiment hands back: its measurement, the operations per iteration the
// result is reported per, and free notes and extra values for the record.
type Outcome struct {
	M     Measurement
	Per   int
	Notes []string
	Extra map[string]float64
	// PerThreadTestNs holds, for team experiments, each thread's own kept test batch times.
	PerThreadTestNs [][]int64
	// PinRefusals counts the pinning requests the kernel refused (the notes say which).
	PinRefusals int
}

// batchesMessage is the final line of a successful probe (probes/README.md "Protocol").
type batchesMessage struct {
	Type            string             `json:"type"`
	V               int                `json:"v"`
	BatchOps        uint64             `json:"batch_ops"`
	Per             int                `json:"per"`
	TestNs          []int64            `json:"test_ns"`
	ControlNs       []int64            `json:"control_ns"`
	ResolutionNs    float64            `json:"resolution_ns"`
	SizedBatchOps   *uint64            `json:"sized_batch_ops,omitempty"`
	Notes           []string           `json:"notes"`
	Extra           map[string]float64 `json:"extra"`
	PerThreadTestNs [][]int64          `json:"per_thread_test_ns,omitempty"`
	PinRefusals     int                `json:"pin_refusals,omitempty"`
}

// errorMessage is the final line of a probe that could not measure its point.
type errorMessage struct {
	Type    string `json:"type"`
	V       int    `json:"v"`
	Message string `json:"message"`
}

// noteMessage is a free-text line for the log, before the final line.
type noteMessage struct {
	Type string `json:"type"`
	V    int    `json:"v"`
	Text string `json:"text"`
}

// BatchesLine encodes an outcome as the protocol's batches line (no newline). sized is the N of the
// first sizing (0: none happened, the field is left out); resolution is the clock's step in ns.
func BatchesLine(o *Outcome, sized uint64, resolution float64) ([]byte, error) {
	per := o.Per
	if per < 1 {
		per = 1
	}
	msg := batchesMessage{
		Type: "batches", V: ProtocolVersion, BatchOps: o.M.N, Per: per,
		TestNs: o.M.TestNs, ControlNs: o.M.ControlNs, ResolutionNs: resolution,
		Notes: o.Notes, Extra: o.Extra, PerThreadTestNs: o.PerThreadTestNs, PinRefusals: o.PinRefusals,
	}
	if sized > 0 {
		msg.SizedBatchOps = &sized
	}
	if msg.Notes == nil {
		msg.Notes = []string{}
	}
	if msg.Extra == nil {
		msg.Extra = map[string]float64{}
	}
	// The counts are per iteration of the batch, as the times are: per reported operation they divide by per.
	for key, perIteration := range o.M.Counts {
		msg.Extra[key] = perIteration / float64(per)
	}
	if len(msg.TestNs) == 0 || len(msg.TestNs) != len(msg.ControlNs) {
		return nil, fmt.Errorf("internal: %d test and %d control batches", len(msg.TestNs), len(msg.ControlNs))
	}
	return json.Marshal(msg)
}

// writeLine writes one JSON message and a newline.
func writeLine(w io.Writer, v interface{}) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(errorMessage{"error", ProtocolVersion, "internal: " + err.Error()})
	}
	fmt.Fprintf(w, "%s\n", b)
}

// WriteError writes the protocol's error line.
func WriteError(w io.Writer, message string) {
	writeLine(w, errorMessage{"error", ProtocolVersion, message})
}

// WriteNote writes one note line.
func WriteNote(w io.Writer, text string) {
	writeLine(w, noteMessage{"note", ProtocolVersion, text})
}
