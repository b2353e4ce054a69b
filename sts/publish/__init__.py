"""Publishing sessions to the Hugging Face Hub: a folder ready for ``hf upload``
(`folder.publish`), the real loader's check of it (`check.check`), and the upload
(`push.push`). ``datasets``, ``teich`` and ``huggingface_hub`` come with the ``hub`` extra
(``pip install 'sts-convert[hub]'``) and are imported only by the check and the upload."""

from sts.publish.folder import PublishOptions, PublishResult, publish

__all__ = ["PublishOptions", "PublishResult", "publish"]
