"""The embedded default's broker: kombu's filesystem transport, each message written whole.

kombu's filesystem transport creates a message's file under its final name and then
writes it; a worker that lists the queue folder in between takes the empty file, cannot
parse it and dies ("Unrecoverable error: JSONDecodeError"; the process manager restarts
it, and that message is lost: seen once in a three-minute bot game of ``make run``).
Here a message is written under a name no queue matches (``<name>.tmp``) and then
renamed into place: a rename within a folder is atomic, so a reader finds a whole
message or none.  ``CELERY_BROKER_TRANSPORT`` names this transport on the embedded
default (``config.settings``).
"""

from __future__ import annotations

import os
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        """Put ``payload`` onto ``queue``: written aside, then renamed into the queue."""
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"  # (kombu's naming: read in order)
        final = os.path.join(self.data_folder_out, name)
        partial = final + ".tmp"  # (a reader takes only names ending in ".<queue>.msg")
        try:
            with open(partial, "wb") as f:
                f.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel
