package overhead.probe;

/** A point the probe cannot measure, with the message for the protocol's error line. */
public final class ProbeException extends Exception {
    private static final long serialVersionUID = 1L;

    /** An error line with this message. */
    public ProbeException(String message) {
        super(message);
    }
}
