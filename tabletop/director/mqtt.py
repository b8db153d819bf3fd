"""A link to the venue's MQTT broker (paho-mqtt), as the director and each table use it.

The link connects in the background and keeps reconnecting (every 1 to 5 s) for as
long as it runs: the venue's Wi-Fi drops and comes back, the broker restarts. It
says so in one line each time the broker is lost or found again (``cannot reach the
broker at 127.0.0.1:1883: Connection refused, retrying``), never a traceback, and
subscribes again on every connection. paho-mqtt (2.0 or later) is imported only
when a link is made: it is the ``tournament`` extra, not needed by the engine.

>>> BrokerAddress.parse("127.0.0.1:1883"), str(BrokerAddress.parse("broker.local"))
(BrokerAddress(host='127.0.0.1', port=1883), 'broker.local:1883')
"""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from tabletop.tournament.model import TournamentError

DEFAULT_PORT = 1883
NO_PAHO = ("the tournament's broker link needs the Python package paho-mqtt 2.0 or later: "
           "pip install 'tabletop[tournament]' (or pip install paho-mqtt)")


@dataclass(frozen=True)
class BrokerAddress:
    host: str
    port: int = DEFAULT_PORT

    @classmethod
    def parse(cls, text: str) -> BrokerAddress:
        """``HOST:PORT`` or ``HOST`` (port 1883); TournamentError if it is neither."""
        host, colon, port = text.strip().rpartition(":")
        if not colon:
            host, port = text.strip(), str(DEFAULT_PORT)
        # (mqtt://HOST would be taken for a host called "mqtt" and looked up for ever)
        if not host or "/" in host or not port.isdigit() or not 0 < int(port) < 65536:
            raise TournamentError(f"--broker takes HOST:PORT, such as 127.0.0.1:1883 "
                                  f"({text!r} is not one)")
        return cls(host.strip("[]"), int(port))

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


def _paho() -> Any:
    try:
        import paho.mqtt.client as client
    except ImportError:
        raise TournamentError(NO_PAHO) from None
    if not hasattr(client, "CallbackAPIVersion"):
        raise TournamentError(NO_PAHO + f" (this is paho-mqtt {getattr(client, '__version__', '?')})")
    return client


class Link:
    """One client of the broker: ``subscriptions`` (topic, QoS) are made again on every
    connection, then ``on_connect`` is called; ``on_message(topic, payload)`` for each
    message (on the link's own thread)."""

    def __init__(self, address: BrokerAddress, client_id: str, out: Callable[[str], None],
                 subscriptions: Sequence[tuple[str, int]] = (),
                 on_connect: Callable[[], None] | None = None,
                 on_message: Callable[[str, bytes], None] | None = None) -> None:
        paho = _paho()
        self.address, self.out = address, out
        self.subscriptions = list(subscriptions)
        self._on_connect, self._on_message = on_connect, on_message
        self._connected = threading.Event()
        self._lost_said = False
        self.client = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=client_id,
                                  protocol=paho.MQTTv311, clean_session=True)
        self.client.reconnect_delay_set(min_delay=1, max_delay=5)
        self.client.on_connect = self._connect
        self.client.on_connect_fail = self._connect_fail
        self.client.on_disconnect = self._disconnect
        self.client.on_message = self._message

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def start(self) -> None:
        """Connect in the background (and keep reconnecting) until :meth:`stop`."""
        self.client.connect_async(self.address.host, self.address.port, keepalive=10)
        self.client.loop_start()

    def wait(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the broker; whether it is connected."""
        return self._connected.wait(seconds)

    def publish(self, topic: str, payload: bytes, qos: int = 1, retain: bool = False) -> bool:
        """Send ``payload`` if the broker is connected; whether it was handed to the client
        (not whether it arrived: what must arrive is resent until it is answered)."""
        if not self.connected:
            return False
        info = self.client.publish(topic, payload, qos=qos, retain=retain)
        return info.rc == 0

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
        self._connected.clear()

    # -- paho's callbacks (its thread) ------------------------------------------------------

    def _connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            self._say_lost(f"the broker at {self.address} refused the connection: {reason}; "
                           f"retrying")
            return
        self._connected.set()
        self._lost_said = False
        self.out(f"connected to the broker at {self.address}")
        for topic, qos in self.subscriptions:
            client.subscribe(topic, qos=qos)
        if self._on_connect is not None:
            self._guarded(self._on_connect)

    def _connect_fail(self, client: Any, userdata: Any) -> None:
        self._connected.clear()
        self._say_lost(f"cannot reach the broker at {self.address}: {_why(self.address)}, "
                       f"retrying")

    def _disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        was = self.connected
        self._connected.clear()
        if was and reason.is_failure:
            self._say_lost(f"lost the broker at {self.address}: retrying")

    def _message(self, client: Any, userdata: Any, message: Any) -> None:
        if self._on_message is not None:
            self._guarded(self._on_message, message.topic, bytes(message.payload))

    def _say_lost(self, line: str) -> None:
        """Said once an outage, not at every retry."""
        if not self._lost_said:
            self._lost_said = True
            self.out(line)

    def _guarded(self, call: Callable[..., None], *args: Any) -> None:
        """A callback's error said in one line: paho's thread must not die of it."""
        try:
            call(*args)
        except Exception as error:     # noqa: BLE001 - said, and the link goes on
            self.out(f"tabletop: {error}")


def _why(address: BrokerAddress) -> str:
    """Why the broker cannot be reached, as the system says it (paho does not pass it on)."""
    try:
        socket.create_connection((address.host, address.port), timeout=2).close()
    except OSError as error:
        return error.strerror or str(error) or type(error).__name__
    return "it did not answer as an MQTT broker"
